package dev.nightshift.agent.provider.http;

import java.util.List;
import java.util.Map;

/**
 * The machine API, version 1, as Nightshift calls it (its reference is the OpenAPI file
 * {@code machine-api/v1.yaml} on the class path). A cloud adapter serves it; {@code nightshift
 * sandbox} serves it from its simulated cloud.
 *
 * <p>Every write that creates or changes a machine carries an idempotency key, deterministic for
 * what is asked ({@link IdempotencyKeys}), so that a request repeated after a lost answer or by a
 * restarted agent changes nothing and answers with what the first one made. Calls throw
 * {@link MachineApiException} with the server's message (never the token).
 */
public interface MachineApi {

    /** {@code GET /v1/pools/{pool}/machines}: every machine of the pool, in every state. */
    List<ApiMachine> list(String pool);

    /** {@code POST /v1/pools/{pool}/machines}: a new machine (or the one a request with this key made). */
    ApiMachine create(String pool, String idempotencyKey, MachineRequest request);

    /** {@code POST /v1/machines/{id}/replace}: terminates {@code id} and creates its replacement as one operation; returns the replacement. */
    ApiMachine replace(String id, String idempotencyKey, MachineRequest request);

    /** {@code DELETE /v1/machines/{id}}: true when the deletion started, false when the machine was already gone (404). */
    boolean delete(String id);

    /** {@code POST /v1/machines/{id}/update}: starts an in-place update or a kubelet restart. */
    void update(String id, String idempotencyKey, UpdateRequest request);

    /**
     * {@code PATCH /v1/machines/{id}} with {@code {"annotations": …}} as an RFC 7386 merge patch:
     * a null value removes the key. Returns the machine after the patch.
     */
    ApiMachine patchAnnotations(String id, Map<String, String> annotations);
}
