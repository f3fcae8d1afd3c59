package dev.nightshift.spec.yaml;

import java.util.HashMap;
import java.util.Map;

/**
 * Where each field of one document was written, so that checks made after parsing (validation,
 * cross-document rules) can still point at file, line and column. {@link Fields} fills it in as it
 * reads.
 */
public final class SourceMap {

    private final Location document;
    private final Map<String, Location> fields = new HashMap<>();

    public SourceMap(Location document) {
        this.document = document;
    }

    void put(String path, Location where) {
        fields.put(path, where);
    }

    /** The field's place, else its nearest written parent's, else the document's. */
    public Location find(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Location l = fields.get(p);
            if (l != null) {
                return l;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
        return document;
    }

    public Location document() {
        return document;
    }
}
