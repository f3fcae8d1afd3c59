package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubeletVersionsTest {

    @Test
    void theVAndAVendorSuffixAreIgnored() {
        assertThat(KubeletVersions.same("v1.31.5", "1.31.5")).isTrue();
        assertThat(KubeletVersions.same("v1.31.5+k3s1", "1.31.5")).isTrue();
        assertThat(KubeletVersions.same("v1.31.5-eks-1a2b3c", "1.31.5")).isTrue();
        assertThat(KubeletVersions.same("1.31.5", "v1.31.5")).isTrue();
    }

    @Test
    void anotherPatchOrNoVersionIsNotTheTarget() {
        assertThat(KubeletVersions.same("v1.31.4", "1.31.5")).isFalse();
        assertThat(KubeletVersions.same("v1.31.50", "1.31.5")).isFalse();
        assertThat(KubeletVersions.same(null, "1.31.5")).isFalse();
        assertThat(KubeletVersions.same("", "1.31.5")).isFalse();
        assertThat(KubeletVersions.same("v", "")).isFalse();
    }
}
