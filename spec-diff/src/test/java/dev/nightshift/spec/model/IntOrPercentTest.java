package dev.nightshift.spec.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IntOrPercentTest {

    @ParameterizedTest(name = "{0}% of {1}: surge {2}, unavailable {3}")
    @CsvSource({
            "25,  10, 3, 2",
            "1,   3,  1, 0",
            "50,  3,  2, 1",
            "100, 7,  7, 7",
            "0,   9,  0, 0",
            "30,  10, 3, 3",
            "25,  0,  0, 0",
    })
    void percentageSurgeRoundsUpAndUnavailableRoundsDown(int percent, int count, int surge, int unavailable) {
        IntOrPercent p = IntOrPercent.percentOf(percent);

        assertThat(p.resolve(count, true)).isEqualTo(surge);
        assertThat(p.resolve(count, false)).isEqualTo(unavailable);
    }

    @Test
    void absoluteValueIgnoresThePoolSize() {
        assertThat(IntOrPercent.of(2).resolve(100, true)).isEqualTo(2);
        assertThat(IntOrPercent.of(2).resolve(1, false)).isEqualTo(2);
    }

    @Test
    void resolvingAHugePoolDoesNotOverflow() {
        assertThat(IntOrPercent.percentOf(100).resolve(Integer.MAX_VALUE, true)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void parsePercentReadsAPercentage() {
        assertThat(IntOrPercent.parsePercent("25%")).hasValue(IntOrPercent.percentOf(25));
        assertThat(IntOrPercent.parsePercent("0%")).hasValue(IntOrPercent.percentOf(0));
        assertThat(IntOrPercent.parsePercent("100%")).hasValue(IntOrPercent.percentOf(100));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "25", "101%", "150%", "-5%", "025%", "2.5%", "25 %", "%", "abc"})
    void parsePercentRefusesAnythingElse(String text) {
        assertThat(IntOrPercent.parsePercent(text)).isEmpty();
    }

    @Test
    void negativeValuesCannotBeBuilt() {
        assertThatThrownBy(() -> IntOrPercent.of(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void percentagesAbove100CannotBeBuilt() {
        assertThatThrownBy(() -> IntOrPercent.percentOf(101)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void absoluteZeroIsNotAZeroPercentage() {
        assertThat(IntOrPercent.of(0).isAbsoluteZero()).isTrue();
        assertThat(IntOrPercent.percentOf(0).isAbsoluteZero()).isFalse();
        assertThat(IntOrPercent.percentOf(0).isZero()).isTrue();
        assertThat(IntOrPercent.of(1).isZero()).isFalse();
    }

    @Test
    void toStringIsTheSpecSpelling() {
        assertThat(IntOrPercent.of(3)).hasToString("3");
        assertThat(IntOrPercent.percentOf(25)).hasToString("25%");
    }
}
