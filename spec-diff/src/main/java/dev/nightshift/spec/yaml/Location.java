package dev.nightshift.spec.yaml;

/** A place in a YAML file; line and column are 1-based. */
public record Location(String file, int line, int column) {

    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
