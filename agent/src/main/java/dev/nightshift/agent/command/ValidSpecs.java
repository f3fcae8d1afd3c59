package dev.nightshift.agent.command;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.SpecSet;

/** Loads a spec for a command; an invalid one is listed on stderr and the command exits 2, as {@code diff} does. */
public final class ValidSpecs {

    private ValidSpecs() {
    }

    public static Optional<SpecSet> load(Path path, PrintWriter err) {
        LoadResult loaded = new SpecLoader().load(path);
        if (loaded.valid()) {
            return Optional.of(loaded.specs());
        }
        err.println("The spec is invalid:");
        loaded.errors().forEach(e -> err.println("  " + e));
        return Optional.empty();
    }
}
