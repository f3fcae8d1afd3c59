package dev.nightshift.spec.model;

import java.util.regex.Pattern;

/**
 * A machine image version such as {@code 1632.0.0}. Ordered part by part, numerically where both
 * parts are numbers, so {@code 1630.10.0} is above {@code 1630.9.0}.
 */
public record ImageVersion(String text) implements Comparable<ImageVersion> {

    private static final Pattern FORM = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+_-]*");
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,18}");

    public static boolean isValid(String text) {
        return FORM.matcher(text).matches();
    }

    @Override
    public int compareTo(ImageVersion o) {
        String[] a = text.split("\\.");
        String[] b = o.text.split("\\.");
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String x = i < a.length ? a[i] : "0";
            String y = i < b.length ? b[i] : "0";
            int c = NUMBER.matcher(x).matches() && NUMBER.matcher(y).matches()
                    ? Long.compare(Long.parseLong(x), Long.parseLong(y))
                    : x.compareTo(y);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return text;
    }
}
