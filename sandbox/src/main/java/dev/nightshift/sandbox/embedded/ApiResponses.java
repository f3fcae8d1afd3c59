package dev.nightshift.sandbox.embedded;

import java.util.List;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.MockResponse;

/** Responses shaped as the real API server's: JSON bodies, and {@code Status} objects for errors. */
final class ApiResponses {

    static final String JSON = "application/json";

    private final KubernetesSerialization json;

    ApiResponses(KubernetesSerialization json) {
        this.json = json;
    }

    MockResponse json(int code, Object body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", JSON).setBody(json.asJson(body));
    }

    MockResponse text(int code, String body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "text/plain; charset=utf-8").setBody(body);
    }

    MockResponse success(int code) {
        return json(code, new StatusBuilder().withNewMetadata().endMetadata().withStatus("Success").withCode(code).build());
    }

    MockResponse failure(int code, String reason, String message) {
        return json(code, status(code, reason, message, List.of()));
    }

    MockResponse failure(int code, String reason, String message, List<StatusCause> causes) {
        return json(code, status(code, reason, message, causes));
    }

    MockResponse notFound(String resource, String name) {
        return failure(404, "NotFound", resource + " \"" + name + "\" not found");
    }

    private static Status status(int code, String reason, String message, List<StatusCause> causes) {
        StatusBuilder status = new StatusBuilder().withNewMetadata().endMetadata()
                .withStatus("Failure").withReason(reason).withMessage(message).withCode(code);
        if (!causes.isEmpty()) {
            status.withNewDetails().withCauses(causes).endDetails();
        }
        return status.build();
    }
}
