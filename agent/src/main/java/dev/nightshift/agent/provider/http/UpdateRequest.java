package dev.nightshift.agent.provider.http;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@code POST /v1/machines/{id}/update}: update the machine in place, or restart its kubelet, to
 * {@code spec}; once done its record carries {@code annotations} (the target hashes).
 */
public record UpdateRequest(Operation operation, Map<String, String> annotations, MachineSpec spec) {

    public UpdateRequest {
        Objects.requireNonNull(operation, "operation");
        annotations = Map.copyOf(annotations);
        Objects.requireNonNull(spec, "spec");
    }

    public enum Operation {
        IN_PLACE_UPDATE("in-place-update"), RESTART_KUBELET("restart-kubelet");

        private final String json;

        Operation(String json) {
            this.json = json;
        }

        @JsonValue
        public String json() {
            return json;
        }

        public static Optional<Operation> of(String json) {
            return Arrays.stream(values()).filter(o -> o.json.equals(json)).findFirst();
        }
    }
}
