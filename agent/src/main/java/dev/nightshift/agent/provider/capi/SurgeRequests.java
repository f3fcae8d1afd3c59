package dev.nightshift.agent.provider.capi;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The surge machines Nightshift asked a MachineDeployment for, kept on it as
 * {@value #ANNOTATION}: {@code {"<old node>": "<when asked>"}}. With the pool's size recorded as
 * {@value #DESIRED_REPLICAS}, {@code spec.replicas} is always {@code desired-replicas + requests},
 * so that asking again changes nothing and a restarted agent knows what is in flight.
 */
record SurgeRequests(Map<String, Instant> partners) {

    static final String ANNOTATION = "nightshift.dev/surge-requests";
    /** The pool's size before any surge: kubectl rolling-update's recovery annotation, in Nightshift's words. */
    static final String DESIRED_REPLICAS = "nightshift.dev/desired-replicas";

    private static final ObjectMapper JSON = new ObjectMapper();

    SurgeRequests {
        partners = Map.copyOf(new TreeMap<>(partners));
    }

    static SurgeRequests read(String text) {
        Map<String, Instant> partners = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return new SurgeRequests(partners);
        }
        try {
            JsonNode o = JSON.readTree(text);
            o.fields().forEachRemaining(e -> partners.put(e.getKey(), Instant.parse(e.getValue().asText())));
        } catch (JsonProcessingException | RuntimeException e) {
            throw new IllegalStateException("the MachineDeployment's " + ANNOTATION + " annotation is not Nightshift's JSON: " + text, e);
        }
        return new SurgeRequests(partners);
    }

    String write() {
        ObjectNode o = JSON.createObjectNode();
        new TreeMap<>(partners).forEach((partner, at) -> o.put(partner, at.toString()));
        return o.toString();
    }

    SurgeRequests with(String partner, Instant at) {
        Map<String, Instant> next = new TreeMap<>(partners);
        next.putIfAbsent(partner, at);
        return new SurgeRequests(next);
    }

    SurgeRequests without(String partner) {
        Map<String, Instant> next = new TreeMap<>(partners);
        next.remove(partner);
        return new SurgeRequests(next);
    }

    int size() {
        return partners.size();
    }
}
