package dev.nightshift.spec.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.math.BigDecimal;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityTest {

    private static Quantity q(String text) {
        return Quantity.parse(text).orElseThrow(() -> new AssertionError("not parsed: " + text));
    }

    @ParameterizedTest(name = "{0} == {1}")
    @CsvSource({
            "1Gi,   1024Mi",
            "0.5,   500m",
            "1e3,   1k",
            "1E3,   1000",
            "1Ki,   1024",
            "1M,    1000k",
            "1.5Gi, 1536Mi",
            "100m,  0.1",
            "1000n, 1u",
            "+1,    1",
    })
    void equalAmountsAreEqualWhateverTheSpelling(String a, String b) {
        assertThat(q(a)).isEqualTo(q(b));
        assertThat(q(a).hashCode()).isEqualTo(q(b).hashCode());
    }

    @Test
    void differentAmountsAreNotEqual() {
        assertThat(q("1Gi")).isNotEqualTo(q("1G"));
    }

    @Test
    void theTextIsKeptAsWritten() {
        assertThat(q("1024Mi").text()).isEqualTo("1024Mi");
        assertThat(q("1024Mi")).hasToString("1024Mi");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "1Gi,  1073741824",
            "500m, 0.5",
            "1e3,  1000",
            "80m,  0.08",
            "0,    0",
            "0.0,  0",
    })
    void canonicalIsThePlainAmountInBaseUnits(String text, String canonical) {
        assertThat(q(text).canonical()).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "1GB", "1gi", "1.2.3", "Gi", "1 Gi", "1e", "0x10", "1e3Gi"})
    void textThatIsNotAQuantityIsRefused(String text) {
        assertThat(Quantity.parse(text)).isEmpty();
    }

    @Test
    void negativeQuantitiesParseAndKnowTheirSign() {
        assertThat(q("-1Gi").isNegative()).isTrue();
        assertThat(q("0").isNegative()).isFalse();
    }

    @Test
    void plusAddsTheAmounts() {
        assertThat(q("512Mi").plus(q("512Mi"))).isEqualTo(q("1Gi"));
    }

    @Test
    void anExponentTooLargeForAnIntIsRefusedNotThrown() {
        Optional<Quantity>[] parsed = new Optional[1];
        assertThatCode(() -> parsed[0] = Quantity.parse("1e99999999999")).doesNotThrowAnyException();
        assertThat(parsed[0]).isEmpty();
    }

    @Test
    void anAbsurdExponentIsRefused() {
        // canonical() of 1e2000000000 would be a two-billion-character string
        assertThat(Quantity.parse("1e2000000000")).isEmpty();
    }

    @Test
    void equalityIgnoresScale() {
        assertThat(new Quantity(new BigDecimal("1.000"), "1.000")).isEqualTo(new Quantity(BigDecimal.ONE, "1"));
    }
}
