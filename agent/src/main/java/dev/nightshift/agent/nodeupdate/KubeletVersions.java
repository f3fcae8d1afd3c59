package dev.nightshift.agent.nodeupdate;

/**
 * Compares the version a node's kubelet reports ({@code status.nodeInfo.kubeletVersion}, e.g.
 * {@code v1.31.5}, {@code v1.31.5+k3s1}, {@code v1.31.5-eks-1234}) with a target ({@code 1.31.5}):
 * without the {@code v} and any vendor suffix after {@code +} or {@code -}.
 */
public final class KubeletVersions {

    private KubeletVersions() {
    }

    /** Whether {@code reported} is {@code target}; a node that reports none runs no known version. */
    public static boolean same(String reported, String target) {
        return reported != null && target != null && !core(reported).isEmpty() && core(reported).equals(core(target));
    }

    /** {@code v1.31.5+k3s1} → {@code 1.31.5}. */
    static String core(String version) {
        String v = version.trim();
        if (v.startsWith("v") || v.startsWith("V")) {
            v = v.substring(1);
        }
        int cut = v.length();
        for (char c : new char[] {'+', '-'}) {
            int at = v.indexOf(c);
            if (at >= 0 && at < cut) {
                cut = at;
            }
        }
        return v.substring(0, cut);
    }
}
