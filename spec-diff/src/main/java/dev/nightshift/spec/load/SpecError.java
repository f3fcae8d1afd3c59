package dev.nightshift.spec.load;

/**
 * One problem with the input, where it is and what is wrong.
 *
 * @param file   relative to the directory (or the file) that was loaded
 * @param line   1-based
 * @param column 1-based
 * @param path   the field, e.g. {@code spec.maxSurge}; empty for a problem with the whole document
 */
public record SpecError(String file, int line, int column, String path, String message) {

    public static SpecError at(Location where, String path, String message) {
        return new SpecError(where.file(), where.line(), where.column(), path, message);
    }

    @Override
    public String toString() {
        return file + ":" + line + ":" + column + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }
}
