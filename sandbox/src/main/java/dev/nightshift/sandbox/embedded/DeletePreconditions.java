package dev.nightshift.sandbox.embedded;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * A DELETE's {@code DeleteOptions.preconditions} ({@code uid}, {@code resourceVersion}) checked as the API server
 * checks them: when the stored object has another, the DELETE is refused with 409 and nothing is deleted. The mock
 * store ignores them; a client that deletes "this object as I read it" (fabric8's {@code lockResourceVersion}) relies
 * on them, so that a change made in between (a Machine's node joining) is never deleted unseen.
 */
final class DeletePreconditions {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesCrudDispatcher store;
    private final ApiResponses responses;

    DeletePreconditions(KubernetesCrudDispatcher store, ApiResponses responses) {
        this.store = store;
        this.responses = responses;
    }

    /** The refusal of {@code request}, a DELETE of one object at {@code resourcePath}; empty when it may go on. */
    Optional<MockResponse> refusal(RecordedRequest request, String resourcePath) {
        if (request.getBody() == null || request.getBody().size() == 0) {
            return Optional.empty();
        }
        JsonNode preconditions;
        try {
            // getBytes() leaves the body in place for the store.
            preconditions = JSON.readTree(new String(request.getBody().getBytes(), StandardCharsets.UTF_8)).path("preconditions");
        } catch (java.io.IOException e) {
            return Optional.of(responses.failure(400, "BadRequest", "invalid DeleteOptions: " + e.getMessage()));
        }
        String uid = preconditions.path("uid").asText("");
        String version = preconditions.path("resourceVersion").asText("");
        if (uid.isEmpty() && version.isEmpty()) {
            return Optional.empty();
        }
        MockResponse current = store.handleGet(resourcePath);
        if (current.code() != 200) {
            return Optional.empty();
        }
        JsonNode metadata;
        try {
            metadata = JSON.readTree(current.getBody().readUtf8()).path("metadata");
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the store holds JSON", e);
        }
        String name = metadata.path("name").asText();
        if (!uid.isEmpty() && !uid.equals(metadata.path("uid").asText())) {
            return Optional.of(responses.failure(409, "Conflict", "Operation cannot be fulfilled on \"" + name
                    + "\": Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + metadata.path("uid").asText()));
        }
        if (!version.isEmpty() && !version.equals(metadata.path("resourceVersion").asText())) {
            return Optional.of(responses.failure(409, "Conflict", "Operation cannot be fulfilled on \"" + name
                    + "\": Precondition failed: ResourceVersion in precondition: " + version + ", ResourceVersion in object meta: "
                    + metadata.path("resourceVersion").asText()));
        }
        return Optional.empty();
    }
}
