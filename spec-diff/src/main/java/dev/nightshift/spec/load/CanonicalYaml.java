package dev.nightshift.spec.load;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.CredentialsRotation;
import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.MachineControllerManager;
import dev.nightshift.spec.model.MachineImage;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.Rollout;
import dev.nightshift.spec.model.WorkerPoolSpec;

/**
 * A {@code Cluster} or {@code WorkerPool} written back as the YAML document that {@link SpecLoader}
 * reads to an equal model: every default written out, keys in a fixed order, every string
 * double-quoted (non-ASCII escaped), so equal models give equal text. The agent keeps the spec it
 * accepted in this form, which outlives the commit it came from.
 */
public final class CanonicalYaml {

    /** Schema keys are written plain; free-form keys (labels, annotations, resources…) are always quoted. */
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z][A-Za-z0-9]*");

    private CanonicalYaml() {
    }

    /** A YAML scalar written as is: a number, {@code true}, {@code false} or {@code null}. */
    private record Plain(String text) {
    }

    public static String cluster(ClusterSpec c) {
        Map<String, Object> spec = new LinkedHashMap<>();
        Map<String, Object> kubernetes = new LinkedHashMap<>();
        kubernetes.put("version", c.kubernetesVersion().toString());
        kubernetes.put("kubelet", kubelet(c.kubelet()));
        spec.put("kubernetes", kubernetes);
        spec.put("systemComponents", Map.of("nodeLocalDNS", Map.of("enabled", bool(c.nodeLocalDns()))));
        Map<String, Object> rotation = new LinkedHashMap<>();
        c.certificateAuthorities().ifPresent(r -> rotation.put("certificateAuthorities", rotation(r)));
        c.serviceAccountKey().ifPresent(r -> rotation.put("serviceAccountKey", rotation(r)));
        if (!rotation.isEmpty()) {
            spec.put("credentials", Map.of("rotation", rotation));
        }
        c.maintenance().ifPresent(m -> spec.put("maintenance", maintenance(m)));
        Map<String, Object> rollingUpdate = new LinkedHashMap<>();
        c.rollingUpdate().maxSurge().ifPresent(v -> rollingUpdate.put("maxSurge", limit(v)));
        c.rollingUpdate().maxUnavailable().ifPresent(v -> rollingUpdate.put("maxUnavailable", limit(v)));
        spec.put("rollingUpdate", rollingUpdate);
        List<Object> images = new ArrayList<>();
        for (MachineImage image : c.machineImages()) {
            List<Object> versions = new ArrayList<>();
            for (MachineImage.Version v : image.versions()) {
                Map<String, Object> inPlace = new LinkedHashMap<>();
                inPlace.put("supported", bool(v.inPlaceSupported()));
                v.minVersionForUpdate().ifPresent(min -> inPlace.put("minVersionForUpdate", min.text()));
                Map<String, Object> version = ordered("version", v.version().text(), "inPlaceUpdates", inPlace);
                v.providerImage().ifPresent(named -> version.put("providerImage", named));
                versions.add(version);
            }
            images.add(ordered("name", image.name(), "versions", versions));
        }
        spec.put("machineImages", images);
        c.rollout().ifPresent(r -> spec.put("rollout", rollout(r)));
        return document("Cluster", Map.of("name", c.name()), spec);
    }

    public static String pool(WorkerPoolSpec p) {
        Map<String, Object> metadata = ordered("name", p.name(), "cluster", p.cluster(), "annotations", new TreeMap<>(p.annotations()));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("role", p.role().yamlName());
        spec.put("minimum", integer(p.minimum()));
        spec.put("maximum", integer(p.maximum()));
        p.maxSurge().ifPresent(v -> spec.put("maxSurge", limit(v)));
        p.maxUnavailable().ifPresent(v -> spec.put("maxUnavailable", limit(v)));
        spec.put("updateStrategy", p.updateStrategy().name());
        spec.put("machine", ordered("type", p.machine().type(),
                "image", ordered("name", p.machine().image().name(), "version", p.machine().image().version().text())));
        p.volume().ifPresent(v -> spec.put("volume", ordered("type", v.type(), "size", v.size().text())));
        spec.put("cri", Map.of("name", p.criName()));
        Map<String, Object> kubernetes = new LinkedHashMap<>();
        p.kubernetesVersion().ifPresent(v -> kubernetes.put("version", v.toString()));
        kubernetes.put("kubelet", kubelet(p.kubelet()));
        spec.put("kubernetes", kubernetes);
        spec.put("providerConfig", free(p.providerConfig().values()));
        spec.put("labels", new TreeMap<>(p.labels()));
        List<Object> taints = new ArrayList<>();
        p.taints().forEach(t -> taints.add(ordered("key", t.key(), "value", t.value(), "effect", t.effect().name())));
        spec.put("taints", taints);
        spec.put("minReadySeconds", integer(p.minReadySeconds()));
        spec.put("progressDeadlineSeconds", integer(p.progressDeadlineSeconds()));
        spec.put("interval", DurationText.format(p.interval()));
        spec.put("drainAndTerminate", bool(p.drainAndTerminate()));
        MachineControllerManager m = p.machineControllerManager();
        Map<String, Object> mcm = new LinkedHashMap<>();
        mcm.put("drainTimeout", DurationText.format(m.drainTimeout()));
        mcm.put("healthTimeout", DurationText.format(m.healthTimeout()));
        mcm.put("creationTimeout", DurationText.format(m.creationTimeout()));
        mcm.put("maxEvictRetries", integer(m.maxEvictRetries()));
        mcm.put("inPlaceUpdateTimeout", DurationText.format(m.inPlaceUpdateTimeout()));
        mcm.put("onEvictionBlocked", m.onEvictionBlocked().name());
        mcm.put("nodeConditions", new ArrayList<Object>(m.nodeConditions()));
        // Written only when the user wrote it: left out, its default follows the update strategy.
        m.disableHealthTimeout().ifPresent(disable -> mcm.put("disableHealthTimeout", bool(disable)));
        spec.put("machineControllerManager", mcm);
        // Written only when written: specs without it keep the canonical text they always had.
        p.rollout().ifPresent(r -> spec.put("rollout", rollout(r)));
        return document("WorkerPool", metadata, spec);
    }

    /** Loads a cluster and a pool document written by this class (or by hand), with the loader's every check. */
    public static LoadResult read(String clusterDocument, String poolDocument) {
        Map<String, byte[]> files = new TreeMap<>();
        files.put("cluster.yaml", clusterDocument.getBytes(StandardCharsets.UTF_8));
        files.put("pool.yaml", poolDocument.getBytes(StandardCharsets.UTF_8));
        return new SpecLoader().load(files);
    }

    // ---- the model's parts -----------------------------------------------------------------

    private static Map<String, Object> kubelet(KubeletConfig k) {
        Map<String, Object> m = new LinkedHashMap<>();
        k.kubeReserved().ifPresent(r -> m.put("kubeReserved", quantities(r)));
        k.systemReserved().ifPresent(r -> m.put("systemReserved", quantities(r)));
        k.evictionHard().ifPresent(e -> m.put("evictionHard", new TreeMap<>(e)));
        k.cpuManagerPolicy().ifPresent(p -> m.put("cpuManagerPolicy", p));
        return m;
    }

    /** Each quantity as it was spelt: the model keeps the spelling (reasons show it) and the amount it denotes. */
    private static Map<String, Object> quantities(Map<String, Quantity> map) {
        Map<String, Object> m = new TreeMap<>();
        map.forEach((k, v) -> m.put(k, v.text()));
        return m;
    }

    private static Map<String, Object> rotation(CredentialsRotation r) {
        List<Object> pending = new ArrayList<>();
        r.pendingWorkersRollouts().forEach(p -> pending.add(ordered("name", p.name(), "lastInitiationTime", instant(p.lastInitiationTime()))));
        return ordered("lastInitiationTime", instant(r.lastInitiationTime()), "pendingWorkersRollouts", pending);
    }

    private static Map<String, Object> maintenance(Maintenance m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.timeWindow().ifPresent(w -> out.put("timeWindow", ordered("begin", daily(w.begin(), w.offset()), "end", daily(w.end(), w.offset()))));
        List<Object> windows = new ArrayList<>();
        m.windows().forEach(w -> windows.add(ordered("schedule", w.schedule(), "duration", DurationText.format(w.duration()),
                "timeZone", w.timeZone().getId())));
        out.put("windows", windows);
        List<Object> exclusions = new ArrayList<>();
        m.exclusions().forEach(e -> exclusions.add(ordered("start", instant(e.start()), "end", instant(e.end()), "reason", e.reason())));
        out.put("exclusions", exclusions);
        out.put("confineSpecUpdateRollout", bool(m.confineSpecUpdateRollout()));
        return out;
    }

    /** Only the fields written: each one left out is inherited (from the cluster, or the default). */
    private static Map<String, Object> rollout(Rollout r) {
        Map<String, Object> out = new LinkedHashMap<>();
        r.waves().ifPresent(w -> out.put("waves", new ArrayList<Object>(w.stream().map(CanonicalYaml::limit).toList())));
        r.soak().ifPresent(d -> out.put("soak", DurationText.format(d)));
        r.healthChecks().ifPresent(checks -> {
            List<Object> list = new ArrayList<>();
            for (HealthCheck check : checks) {
                Map<String, Object> body = new LinkedHashMap<>();
                String kind;
                if (check instanceof HealthCheck.Prometheus p) {
                    kind = "prometheus";
                    body.put("query", p.query());
                    p.min().ifPresent(v -> body.put("min", new Plain(v.toPlainString())));
                    p.max().ifPresent(v -> body.put("max", new Plain(v.toPlainString())));
                } else {
                    kind = "workloadsAvailable";
                    body.put("within", DurationText.format(((HealthCheck.WorkloadsAvailable) check).within()));
                }
                list.add(ordered("name", check.name(), kind, body));
            }
            out.put("healthChecks", list);
        });
        r.onFailure().ifPresent(f -> out.put("onFailure", f.name()));
        r.maxFailedMachines().ifPresent(n -> out.put("maxFailedMachines", integer(n)));
        r.revisionHistoryLimit().ifPresent(n -> out.put("revisionHistoryLimit", integer(n)));
        r.concurrency().ifPresent(c -> {
            Map<String, Object> concurrency = new LinkedHashMap<>();
            concurrency.put("pools", integer(c.pools()));
            c.maxUnavailableNodes().ifPresent(m -> concurrency.put("maxUnavailableNodes", limit(m)));
            out.put("concurrency", concurrency);
        });
        if (!r.after().isEmpty()) {
            out.put("after", new ArrayList<Object>(r.after()));
        }
        return out;
    }

    /** Gardener's {@code HHMMSS+ZZZZ}. */
    private static String daily(java.time.LocalTime time, ZoneOffset offset) {
        int seconds = offset.getTotalSeconds();
        int abs = Math.abs(seconds);
        return String.format("%02d%02d%02d%s%02d%02d", time.getHour(), time.getMinute(), time.getSecond(),
                seconds < 0 ? "-" : "+", abs / 3600, abs % 3600 / 60);
    }

    private static String instant(Instant t) {
        return t.toString();
    }

    private static Object limit(IntOrPercent v) {
        return v.percent() ? v.toString() : integer(v.value());
    }

    private static Plain integer(int v) {
        return new Plain(Integer.toString(v));
    }

    private static Plain bool(boolean v) {
        return new Plain(Boolean.toString(v));
    }

    /** providerConfig's values: strings quoted, numbers by value, booleans and null plain. */
    private static Object free(Object v) {
        if (v == null) {
            return new Plain("null");
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new TreeMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), free(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(free(x)));
            return out;
        }
        if (v instanceof BigDecimal d) {
            return new Plain(d.toPlainString());
        }
        if (v instanceof Number || v instanceof Boolean) {
            return new Plain(v.toString());
        }
        return v.toString();
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    // ---- writing ------------------------------------------------------------------------------

    private static String document(String kind, Map<String, Object> metadata, Map<String, Object> spec) {
        StringBuilder out = new StringBuilder();
        block(out, ordered("apiVersion", SpecReader.API_VERSION, "kind", kind, "metadata", metadata, "spec", spec), 0);
        return out.toString();
    }

    /** A non-empty mapping in block style, one key a line at {@code indent}. */
    private static void block(StringBuilder out, Map<?, ?> map, int indent) {
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!first || indent > 0) {
                out.append(" ".repeat(indent));
            }
            first = false;
            entry(out, String.valueOf(e.getKey()), e.getValue(), indent);
        }
    }

    private static void entry(StringBuilder out, String key, Object value, int indent) {
        out.append(key(key)).append(':');
        if (value instanceof Map<?, ?> m && !m.isEmpty() && !(m instanceof TreeMap<?, ?>)) {
            out.append('\n');
            block(out, m, indent + 2);
        } else if (value instanceof List<?> l && !l.isEmpty() && l.stream().allMatch(i -> i instanceof Map<?, ?>)) {
            out.append('\n');
            for (Object item : l) {
                out.append(" ".repeat(indent + 2)).append("- ");
                Map<?, ?> m = (Map<?, ?>) item;
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        out.append(" ".repeat(indent + 4));
                    }
                    first = false;
                    entry(out, String.valueOf(e.getKey()), e.getValue(), indent + 4);
                }
            }
        } else {
            out.append(' ');
            flow(out, value);
            out.append('\n');
        }
    }

    /** Free-form maps (TreeMaps: labels, resources, providerConfig) and everything inside lists go in flow style. */
    private static void flow(StringBuilder out, Object value) {
        if (value instanceof Map<?, ?> m) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    out.append(", ");
                }
                first = false;
                // Free-form keys are always quoted: YAML 1.1 would read a plain "on" or "no" as a boolean.
                quoted(out, String.valueOf(e.getKey()));
                out.append(": ");
                flow(out, e.getValue());
            }
            out.append('}');
        } else if (value instanceof List<?> l) {
            out.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    out.append(", ");
                }
                flow(out, l.get(i));
            }
            out.append(']');
        } else if (value instanceof Plain p) {
            out.append(p.text());
        } else {
            quoted(out, String.valueOf(value));
        }
    }

    private static String key(String key) {
        if (PLAIN_KEY.matcher(key).matches()) {
            return key;
        }
        StringBuilder b = new StringBuilder();
        quoted(b, key);
        return b.toString();
    }

    /** A double-quoted YAML string; anything but printable ASCII escaped, so no byte of it depends on an encoding. */
    private static void quoted(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7E) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
