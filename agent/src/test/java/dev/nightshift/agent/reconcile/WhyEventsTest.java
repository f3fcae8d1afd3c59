package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.spec.diff.Effect;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.diff.Reason;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

class WhyEventsTest {

    private static final DesiredPool WEB = TestClusters.oneWebPool().pools().get(0);
    private static final PoolTarget IMAGE_BUMP = new PoolTarget("1a2b3c4d5e6f7a8b9c0d", PoolAction.ROLL,
            List.of(new Reason(Effect.ROLL, "spec.machine.image.version", "1631.0.0", "1632.0.0", "")));
    private static final Instant T0 = Instant.parse("2026-11-23T20:00:00Z");

    private static ObservedNode node(StampedHash rollHash, boolean needsUpdate) {
        return ObservedNode.ready("web-1", "web", T0).toBuilder().rollHash(rollHash).kubeletHash(WEB.kubeletHash())
                .needsUpdate(needsUpdate).build();
    }

    @Test
    void aNodeOnAnotherSpecIsReplacedForTheTargetsReasonsAndCommit() {
        Optional<WhyEvents.Note> note = WhyEvents.why(new Step.Cordon("web-1", "web"), WEB,
                node(new StampedHash(1, "0123456789abcdef0123456789abcdef"), false), Optional.of(IMAGE_BUMP));

        assertThat(note).contains(new WhyEvents.Note(EventRecorder.Reason.NodeReplacing,
                "Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit 1a2b3c4)"));
    }

    @Test
    void aNodeOnTheTargetThatAPersonMarkedIsReplacedForTheMarkNotForTheTargetsReasons() {
        Optional<WhyEvents.Note> note = WhyEvents.why(new Step.Cordon("web-1", "web"), WEB, node(WEB.rollHash(), true),
                Optional.of(IMAGE_BUMP));

        assertThat(note).contains(new WhyEvents.Note(EventRecorder.Reason.NodeReplacing,
                "Replacing node: the node is marked nightshift.dev/needs-update=true"));
    }

    @Test
    void aCurrentNodeGetsNoWhyEventItsRepairHasItsOwn() {
        assertThat(WhyEvents.why(new Step.Cordon("web-1", "web"), WEB, node(WEB.rollHash(), false), Optional.of(IMAGE_BUMP)))
                .isEmpty();
    }
}
