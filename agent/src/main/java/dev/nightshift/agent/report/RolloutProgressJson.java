package dev.nightshift.agent.report;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.strategies.model.RolloutProgress;
import dev.nightshift.strategies.model.RolloutProgress.Halt;

/**
 * A pool's rollout in waves as JSON: in the pool's record (data key {@code rollout}) so that a new
 * agent resumes the same wave and soak, and its halt in {@code /status} as {@code healthFailure}.
 */
public final class RolloutProgressJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RolloutProgressJson() {
    }

    public static String write(RolloutProgress p) {
        ObjectNode o = JSON.createObjectNode();
        o.put("target", p.target());
        o.put("outdatedAtStart", p.outdatedAtStart());
        o.put("wave", p.wave());
        p.waveAvailableAt().ifPresent(t -> o.put("waveAvailableAt", t.toString()));
        p.unknownSince().ifPresent(t -> o.put("unknownSince", t.toString()));
        ArrayNode failed = o.putArray("failedMachines");
        new TreeSet<>(p.failedMachines()).forEach(failed::add);
        o.put("availableAtTarget", p.availableAtTarget());
        p.halt().ifPresent(h -> halt(o.putObject("halt"), h));
        return o.toString();
    }

    /** The record's rollout; empty when there is none or it cannot be read (a new rollout then starts from what is observed). */
    public static Optional<RolloutProgress> read(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode o = JSON.readTree(text);
            TreeSet<String> failed = new TreeSet<>();
            o.path("failedMachines").forEach(n -> failed.add(n.asText()));
            JsonNode h = o.path("halt");
            Optional<Halt> halt = h.isObject() ? Optional.of(new Halt(h.path("check").asText(), h.path("value").asText(),
                    h.path("threshold").asText(), h.path("wave").asInt(), Instant.parse(h.path("at").asText()))) : Optional.empty();
            return Optional.of(new RolloutProgress(o.path("target").asText(), o.path("outdatedAtStart").asInt(), o.path("wave").asInt(),
                    instant(o, "waveAvailableAt"), instant(o, "unknownSince"), failed, o.path("availableAtTarget").asInt(), halt));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** {@code {check, value, threshold, wave, at}}: {@code /status}'s {@code healthFailure}. */
    public static void halt(ObjectNode o, Halt h) {
        o.put("check", h.check());
        o.put("value", h.value());
        o.put("threshold", h.threshold());
        o.put("wave", h.wave());
        o.put("at", h.at().toString());
    }

    /** "error-rate (0.07, must be <= 0.01) in wave 1": for Events, logs and {@code nightshift plan}. */
    public static String describe(Halt h) {
        return h.check() + " (" + h.value() + ", must be " + h.threshold() + ") in wave " + h.wave();
    }

    private static Optional<Instant> instant(JsonNode o, String key) {
        return o.hasNonNull(key) ? Optional.of(Instant.parse(o.get(key).asText())) : Optional.empty();
    }
}
