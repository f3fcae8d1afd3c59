package dev.nightshift.agent.provider.http;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A machine as the machine API reports it ({@code Machine} in the OpenAPI file).
 *
 * @param id          the cloud's id for it, stable for its life
 * @param pool        the pool it belongs to
 * @param nodeName    the Kubernetes node it registers (or registered) as; null until known
 * @param state       where it is in its life
 * @param createdAt   when it was asked for
 * @param annotations what was asked for it (Nightshift's hashes and surge partner), updated by
 *                    in-place updates and patches; never copied onto its node by the cloud
 * @param message     why it failed; null otherwise
 */
public record ApiMachine(String id, String pool, String nodeName, MachineState state, Instant createdAt,
                         Map<String, String> annotations, String message) {

    public ApiMachine {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(createdAt, "createdAt");
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    public Optional<String> node() {
        return Optional.ofNullable(nodeName);
    }

    public ApiMachine withState(MachineState next, String why) {
        return new ApiMachine(id, pool, nodeName, next, createdAt, annotations, why);
    }

    public ApiMachine withNodeName(String node) {
        return new ApiMachine(id, pool, node, state, createdAt, annotations, message);
    }

    public ApiMachine withAnnotations(Map<String, String> next) {
        return new ApiMachine(id, pool, nodeName, state, createdAt, next, message);
    }
}
