package dev.nightshift.spec.load;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.spec.yaml.SourceMap;

/** One document that parsed without error, with where its fields were written. */
public sealed interface ParsedDocument {

    SourceMap sources();

    record ClusterDocument(ClusterSpec spec, SourceMap sources) implements ParsedDocument {
    }

    record PoolDocument(WorkerPoolSpec spec, SourceMap sources) implements ParsedDocument {
    }
}
