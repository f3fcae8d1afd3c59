package dev.nightshift.spec.model;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes resource quantity ({@code 80m}, {@code 1Gi}, {@code 1.5e3}). Two quantities that
 * denote the same amount are equal, whatever their spelling, so {@code 1Gi} and {@code 1024Mi}
 * never change a hash.
 */
public final class Quantity {

    private static final Pattern FORM =
            Pattern.compile("([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(?:([eE][+-]?[0-9]{1,2})|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?");

    private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
            Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
            Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
            Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
            Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
            Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
            Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
            Map.entry("n", new BigDecimal("1e-9")),
            Map.entry("u", new BigDecimal("1e-6")),
            Map.entry("m", new BigDecimal("1e-3")),
            Map.entry("k", new BigDecimal("1e3")),
            Map.entry("M", new BigDecimal("1e6")),
            Map.entry("G", new BigDecimal("1e9")),
            Map.entry("T", new BigDecimal("1e12")),
            Map.entry("P", new BigDecimal("1e15")),
            Map.entry("E", new BigDecimal("1e18")));

    private final BigDecimal amount;
    private final String text;
    /** Computed once: hashing asks for it on every reconcile. */
    private final String canonical;

    public Quantity(BigDecimal amount, String text) {
        this.amount = amount.stripTrailingZeros();
        this.text = text;
        this.canonical = this.amount.toPlainString();
    }

    public BigDecimal amount() {
        return amount;
    }

    public String text() {
        return text;
    }

    /**
     * Parses a quantity, or returns empty when the text is not one. Exponents have at most two
     * digits: larger ones denote amounts no resource has, and would make the canonical text huge.
     */
    public static Optional<Quantity> parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            return Optional.empty();
        }
        BigDecimal number = new BigDecimal(m.group(1));
        if (m.group(2) != null) {
            number = number.scaleByPowerOfTen(Integer.parseInt(m.group(2).substring(1)));
        } else if (m.group(3) != null) {
            number = number.multiply(SUFFIXES.get(m.group(3)));
        }
        return Optional.of(new Quantity(number, text));
    }

    public Quantity plus(Quantity other) {
        return new Quantity(amount.add(other.amount), canonical() + "+" + other.canonical());
    }

    public boolean isNegative() {
        return amount.signum() < 0;
    }

    /** The amount in base units, without exponent or trailing zeros: the form that is hashed. */
    public String canonical() {
        return canonical;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Quantity q && q.amount.compareTo(amount) == 0;
    }

    @Override
    public int hashCode() {
        return amount.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
