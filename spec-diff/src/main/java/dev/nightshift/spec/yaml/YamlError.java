package dev.nightshift.spec.yaml;

/**
 * One problem with a YAML file, where it is and what is wrong.
 *
 * @param file   as the caller named it
 * @param line   1-based
 * @param column 1-based
 * @param path   the field, e.g. {@code spec.maxSurge} or {@code git.auth.tokenFile}; empty for a problem with the whole document
 */
public record YamlError(String file, int line, int column, String path, String message) {

    public static YamlError at(Location where, String path, String message) {
        return new YamlError(where.file(), where.line(), where.column(), path, message);
    }

    /** A problem with the file as a whole (unreadable, too large, not UTF-8), placed at its start. */
    public static YamlError ofFile(String file, String message) {
        return new YamlError(file, 1, 1, "", message);
    }

    /** {@code file:line:column: path: message}, the path left out when empty. */
    @Override
    public String toString() {
        return file + ":" + line + ":" + column + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }
}
