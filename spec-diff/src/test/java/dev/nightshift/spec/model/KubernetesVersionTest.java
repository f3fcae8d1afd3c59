package dev.nightshift.spec.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KubernetesVersionTest {

    @Test
    void parseReadsMajorMinorPatch() {
        assertThat(KubernetesVersion.parse("1.31.4")).hasValue(new KubernetesVersion(1, 31, 4));
        assertThat(KubernetesVersion.parse("0.0.0")).hasValue(new KubernetesVersion(0, 0, 0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.31", "1", "v1.31.4", "1.31.4-rc.1", "1.31.4+k3s1", "01.31.4", "1.031.4",
            "1.31.x", " 1.31.4", "1.31.4.0", "1.99999999999.0"})
    void parseRefusesAnythingElse(String text) {
        assertThat(KubernetesVersion.parse(text)).isEmpty();
    }

    @Test
    void ofThrowsOnAMalformedVersion() {
        assertThatThrownBy(() -> KubernetesVersion.of("1.31")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void versionsCompareNumerically() {
        List<KubernetesVersion> sorted = List.of("1.31.10", "1.9.0", "2.0.0", "1.31.9", "1.32.0").stream()
                .map(KubernetesVersion::of).sorted().toList();

        assertThat(sorted).extracting(KubernetesVersion::toString)
                .containsExactly("1.9.0", "1.31.9", "1.31.10", "1.32.0", "2.0.0");
    }

    @Test
    void equalVersionsCompareEqual() {
        assertThat(KubernetesVersion.of("1.31.4")).isEqualByComparingTo(new KubernetesVersion(1, 31, 4));
    }

    @Test
    void minorsAboveCountsMinorReleases() {
        assertThat(KubernetesVersion.of("1.31.4").minorsAbove(KubernetesVersion.of("1.28.9"))).isEqualTo(3);
        assertThat(KubernetesVersion.of("1.31.0").minorsAbove(KubernetesVersion.of("1.31.9"))).isZero();
    }

    @Test
    void minorVersionAndSameMinor() {
        KubernetesVersion v = KubernetesVersion.of("1.31.4");

        assertThat(v.minorVersion()).isEqualTo("1.31");
        assertThat(v.sameMinor(KubernetesVersion.of("1.31.0"))).isTrue();
        assertThat(v.sameMinor(KubernetesVersion.of("1.30.4"))).isFalse();
        assertThat(v.sameMinor(KubernetesVersion.of("2.31.4"))).isFalse();
    }

    @Test
    void toStringRoundTrips() {
        assertThat(KubernetesVersion.of("1.31.4")).hasToString("1.31.4");
    }
}
