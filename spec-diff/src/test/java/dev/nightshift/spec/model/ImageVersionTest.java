package dev.nightshift.spec.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImageVersionTest {

    private static ImageVersion v(String text) {
        return new ImageVersion(text);
    }

    @Test
    void numericPartsCompareAsNumbers() {
        assertThat(v("1630.10.0")).isGreaterThan(v("1630.9.0"));
        assertThat(v("1632.0.0")).isGreaterThan(v("1631.99.99"));
        assertThat(v("10.0")).isGreaterThan(v("9.0"));
    }

    @Test
    void sortingOrdersNumerically() {
        List<ImageVersion> sorted = List.of("1630.10.0", "1630.9.0", "1631.0.0", "1630.0.1").stream()
                .map(ImageVersion::new).sorted().toList();

        assertThat(sorted).extracting(ImageVersion::text).containsExactly("1630.0.1", "1630.9.0", "1630.10.0", "1631.0.0");
    }

    @Test
    void missingPartsCountAsZero() {
        assertThat(v("1631.0")).isEqualByComparingTo(v("1631.0.0"));
        assertThat(v("1631.0.1")).isGreaterThan(v("1631"));
    }

    @Test
    void leadingZerosDoNotChangeTheNumber() {
        assertThat(v("1631.01.0")).isEqualByComparingTo(v("1631.1.0"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1632.0.0", "1.2.3-rc1", "2024_01", "v1", "1.0+build"})
    void validVersions(String text) {
        assertThat(ImageVersion.isValid(text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".1", "-1", "1 0", "1/0", "1:0"})
    void invalidVersions(String text) {
        assertThat(ImageVersion.isValid(text)).isFalse();
    }

    @Test
    void toStringIsTheText() {
        assertThat(v("1632.0.0")).hasToString("1632.0.0");
    }
}
