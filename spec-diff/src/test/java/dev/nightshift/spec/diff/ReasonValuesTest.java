package dev.nightshift.spec.diff;

import static dev.nightshift.spec.diff.Decisions.decide;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The old and new values a reason shows are the same on every run, so a report can be compared and reviewed. */
class ReasonValuesTest {

    /**
     * Reservations are held in {@code Map.copyOf} maps, whose iteration order is randomised per JVM
     * run; a reason must not show that order, or {@code nightshift diff} prints different text for
     * the same two specs from one run to the next. Several maps are checked so that a lucky order
     * in one of them cannot hide the problem.
     */
    @Test
    void kubeletReservationValuesListResourcesInSortedOrder() {
        List<String> resourceSets = List.of(
                "cpu: 100m, memory: 1Gi, pid: 100, ephemeral-storage: 2Gi",
                "pid: 200, cpu: 200m, memory: 2Gi, ephemeral-storage: 3Gi, hugepages-2Mi: 4Mi",
                "memory: 3Gi, hugepages-1Gi: 1Gi, cpu: 300m",
                "ephemeral-storage: 4Gi, pid: 400, memory: 4Gi, cpu: 400m, hugepages-2Mi: 8Mi, hugepages-1Gi: 2Gi",
                "hugepages-2Mi: 2Mi, cpu: 500m, pid: 500, memory: 5Gi");
        List<String> shown = new ArrayList<>();
        for (String resources : resourceSets) {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {" + resources + "}"));
            d.reasons().stream()
                    .filter(r -> r.path().equals("spec.kubernetes.kubelet.kubeReserved"))
                    .forEach(r -> shown.add(r.newValue()));
        }

        assertThat(shown).hasSize(resourceSets.size())
                .allSatisfy(value -> assertThat(resourceNames(value)).isSorted());
    }

    @Test
    void theRollHashReservationSumListsResourcesInSortedOrder() {
        PoolDecision d = decide(ROLLING, edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}",
                "kubeReserved: {pid: 200, cpu: 200m, memory: 2Gi, ephemeral-storage: 3Gi, hugepages-2Mi: 4Mi}"));

        assertThat(d.reasons()).filteredOn(r -> r.path().equals("spec.kubernetes.kubelet.kubeReserved+systemReserved"))
                .singleElement()
                .satisfies(r -> assertThat(resourceNames(r.newValue())).containsExactly("cpu", "ephemeral-storage", "hugepages-2Mi", "memory", "pid"));
    }

    @Test
    void aVolumeSizeReasonShowsTheSizesAsWritten() {
        PoolDecision d = decide(ROLLING, edit(ROLLING, "size: 50Gi", "size: 60Gi"));

        assertThat(d.reasons()).singleElement()
                .satisfies(r -> assertThat(List.of(r.oldValue(), r.newValue())).containsExactly("50Gi", "60Gi"));
    }

    /** {@code {cpu: 0.1, memory: 1073741824}} → [cpu, memory]. */
    private static List<String> resourceNames(String display) {
        List<String> names = new ArrayList<>();
        for (String entry : display.substring(1, display.length() - 1).split(", ")) {
            names.add(entry.substring(0, entry.indexOf(':')));
        }
        return names;
    }
}
