package dev.nightshift.spec.diff;

import dev.nightshift.spec.hash.TestSpecs;

/** Diffs two texts of {@link TestSpecs} and returns the decision for pool {@code prod/web}. */
final class Decisions {

    private Decisions() {
    }

    static PoolDecision decide(String oldYaml, String newYaml) {
        return decide(oldYaml, newYaml, InPlaceHistory.NONE);
    }

    static PoolDecision decide(String oldYaml, String newYaml, InPlaceHistory history) {
        DiffReport report = new SpecDiff().diff(TestSpecs.load(oldYaml), TestSpecs.load(newYaml), history);
        return report.pools().stream()
                .filter(d -> d.cluster().equals("prod") && d.pool().equals("web"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no decision for prod/web in " + report));
    }
}
