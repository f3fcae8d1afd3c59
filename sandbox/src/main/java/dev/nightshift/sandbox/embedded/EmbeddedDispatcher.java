package dev.nightshift.sandbox.embedded;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.zjsonpatch.JsonPatch;

/**
 * In front of the mock server's CRUD store: serves discovery, the eviction subresource and LISTs in pages
 * ({@link ListPages}), which the store lacks, passes everything else (watches included) to the store unchanged, and
 * logs every request with its answer.
 *
 * <p>Requests arrive on several Vert.x event loops at once. One lock around handling and logging makes the log's
 * order the order in which requests took effect, and makes an eviction's budget check and delete atomic. Nothing
 * under the lock blocks: a watch is only registered here, its events flow later on the WebSocket.
 */
final class EmbeddedDispatcher extends Dispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDispatcher.class);

    private final KubernetesCrudDispatcher store;
    private final Discovery discovery;
    private final EvictionHandler evictions;
    private final ApiResponses responses;
    private final RequestLog requests;
    private final Clock clock;
    private final Runnable answered;
    private final ReentrantLock lock = new ReentrantLock();
    private final MergePatches mergePatches;
    private final DeletePreconditions deletePreconditions;
    private final ListPages pages;
    private final AtomicReference<Interference> interference = new AtomicReference<>();
    private final List<Admission> admissions = new CopyOnWriteArrayList<>();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A write by another client, applied to the store just before the first request it matches. */
    record Interference(String method, String resourcePath, String bodyContains, String mergePatch) {
        boolean matches(String method, String resourcePath, String body) {
            return this.method.equals(method) && this.resourcePath.equals(resourcePath) && body.contains(bodyContains);
        }
    }

    /** @param answered runs after each request is answered and logged */
    EmbeddedDispatcher(KubernetesCrudDispatcher store, Discovery discovery, EvictionHandler evictions,
            ApiResponses responses, RequestLog requests, Clock clock, Runnable answered) {
        this.store = store;
        this.mergePatches = new MergePatches(store, responses);
        this.deletePreconditions = new DeletePreconditions(store, responses);
        this.pages = new ListPages(responses);
        this.discovery = discovery;
        this.evictions = evictions;
        this.responses = responses;
        this.requests = requests;
        this.clock = clock;
        this.answered = answered;
    }

    /** Adds a mutating admission step that every later POST, PUT and PATCH passes through, in the order added. */
    void admit(Admission admission) {
        admissions.add(admission);
    }

    private ObjectNode admitted(String resourcePath, ObjectNode object) {
        ObjectNode result = object;
        for (Admission admission : admissions) {
            result = admission.admit(resourcePath, result);
        }
        return result;
    }

    /**
     * Stores namespaced objects as a POST of each would (uid, creationTimestamp, the next resourceVersion, generation 1;
     * watches told),
     * without the store's check that the name is free, which reads every object it holds: seeding 100,000 pods through
     * POSTs is quadratic. The names must be new; nothing is logged, no admission step runs.
     */
    void createDirectly(List<? extends HasMetadata> objects) {
        KubernetesSerialization json = new KubernetesSerialization();
        String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS).atOffset(ZoneOffset.UTC));
        lock.lock();
        try {
            for (HasMetadata object : objects) {
                String namespace = object.getMetadata().getNamespace();
                String name = object.getMetadata().getName();
                if (namespace == null || name == null) {
                    throw new IllegalArgumentException("only namespaced objects with a name: " + object.getKind() + " " + name);
                }
                String api = object.getApiVersion().contains("/") ? "/apis/" : "/api/";
                String path = api + object.getApiVersion() + "/namespaces/" + namespace + "/" + HasMetadata.getPlural(object.getClass());
                GenericKubernetesResource resource = json.convertValue(object, GenericKubernetesResource.class);
                resource.getMetadata().setUid(UUID.randomUUID().toString());
                resource.getMetadata().setCreationTimestamp(now);
                resource.getMetadata().setResourceVersion(String.valueOf(store.requestResourceVersion()));
                // The store's later patches and updates carry the generation on from the stored object.
                resource.getMetadata().setGeneration(1L);
                AttributeSet key = store.getKey(path).add(new Attribute("name", name));
                store.processEvent(path, key, null, resource, json.asJson(resource));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Arms the next interference, replacing one not yet applied. */
    void interfere(Interference next) {
        interference.set(next);
    }

    @Override
    public MockResponse dispatch(io.fabric8.mockwebserver.http.RecordedRequest request) {
        HttpMethod method = request.method();
        boolean hasBody = method == HttpMethod.POST || method == HttpMethod.PUT || method == HttpMethod.PATCH;
        // getBytes() leaves the body in place: the store reads (and drains) it afterwards.
        String body = hasBody && request.getBody() != null ? new String(request.getBody().getBytes(), StandardCharsets.UTF_8) : "";
        String contentType = Optional.ofNullable(request.getHeader("Content-Type")).orElse("");
        String userAgent = Optional.ofNullable(request.getHeader("User-Agent")).orElse("");
        lock.lock();
        try {
            String methodName = method == null ? "UNKNOWN" : method.name();
            String path = request.getPath();
            String resourcePath = path.indexOf('?') < 0 ? path : path.substring(0, path.indexOf('?'));
            Interference pending = interference.get();
            if (pending != null && pending.matches(methodName, resourcePath, body) && interference.compareAndSet(pending, null)) {
                // Applied to the store directly: a request of its own would wait for this lock.
                MockResponse changed = mergePatches.apply(request, resourcePath, pending.mergePatch());
                // The store answers a patch with 202; the API server, and so the log, with 200.
                requests.add(clock.instant(), "PATCH", path, MergePatches.MERGE_PATCH, pending.mergePatch(),
                        changed.code() == 202 ? 200 : changed.code(), EmbeddedKubernetes.INTERFERENCE);
            }
            MockResponse response = handle(request, method, body);
            int status = response.getWebSocketListener() != null ? 101 : response.code();
            // The mock server maps methods it does not know (HEAD among them) to null.
            requests.add(clock.instant(), methodName, request.getPath(), contentType, body, status, userAgent);
            answered.run();
            return response;
        } finally {
            lock.unlock();
        }
    }

    private MockResponse handle(io.fabric8.mockwebserver.http.RecordedRequest request, HttpMethod method, String body) {
        String path = request.getPath();
        int query = path.indexOf('?');
        String resourcePath = query < 0 ? path : path.substring(0, query);
        try {
            if (method == null) {
                return responses.failure(405, "MethodNotAllowed", "method not supported");
            }
            if (method == HttpMethod.GET) {
                Optional<MockResponse> document = discovery.respond(resourcePath);
                if (document.isPresent()) {
                    return document.get();
                }
            }
            Optional<EvictionHandler.Target> eviction = EvictionHandler.target(resourcePath);
            if (eviction.isPresent()) {
                return method == HttpMethod.POST
                        ? evictions.evict(eviction.get(), body)
                        : responses.failure(405, "MethodNotAllowed", "the eviction subresource only takes POST");
            }
            if (method == HttpMethod.DELETE) {
                Optional<MockResponse> refused = deletePreconditions.refusal(request, resourcePath);
                if (refused.isPresent()) {
                    return refused.get();
                }
            }
            String contentType = Optional.ofNullable(request.getHeader("Content-Type")).orElse("");
            String queryText = query < 0 ? "" : path.substring(query + 1);
            MockResponse stored = method == HttpMethod.GET && ListPages.paged(queryText)
                    ? pages.page(resourcePath, queryText, () -> store.dispatch(request))
                    : MergePatches.applies(method, contentType)
                    ? mergePatches.apply(request, resourcePath, body, this::admitted)
                    : store.dispatch(admissions.isEmpty() ? request : admittedRequest(request, method, resourcePath, body));
            if (stored == null) {
                return responses.failure(405, "MethodNotAllowed", method + " is not supported");
            }
            if (stored.getWebSocketListener() != null && store instanceof IndexedCrudDispatcher indexed) {
                stored = WatchFromVersion.wrap(stored, indexed, path, queryText);
            }
            if (stored.getWebSocketListener() == null && stored.getBody() != null && stored.getBody().size() > 0
                    && stored.header("Content-Type") == null) {
                // The store answers without a content type; kubectl and client-go expect one.
                stored.setHeader("Content-Type", ApiResponses.JSON);
            }
            if (method == HttpMethod.PATCH && stored.code() == 202) {
                // The store answers a patch with 202; the API server with 200, which the request log should show.
                stored.setResponseCode(200);
            }
            return stored;
        } catch (RuntimeException e) {
            // Uncaught, the exception would leave the client waiting for an answer that never comes.
            LOG.warn("embedded cluster failed on {} {}", method, path, e);
            return responses.failure(500, "InternalError", String.valueOf(e.getMessage()));
        }
    }

    /**
     * The request as the store should see it once the admission steps have changed the object it would store: a POST
     * or PUT with the changed body, a JSON patch turned into one that also makes the changes. Unchanged otherwise.
     */
    private io.fabric8.mockwebserver.http.RecordedRequest admittedRequest(io.fabric8.mockwebserver.http.RecordedRequest request,
            HttpMethod method, String resourcePath, String body) {
        try {
            if ((method == HttpMethod.POST || method == HttpMethod.PUT) && !body.isBlank()) {
                JsonNode object = JSON.readTree(body);
                if (!object.isObject()) {
                    return request;
                }
                JsonNode changed = admitted(resourcePath, (ObjectNode) object.deepCopy());
                return changed.equals(object) ? request
                        : new io.fabric8.mockwebserver.http.RecordedRequest(request.getHttpVersion(), method, request.getPath(),
                                request.getHeaders(), new Buffer().writeString(JSON.writeValueAsString(changed), StandardCharsets.UTF_8));
            }
            if (method == HttpMethod.PATCH) {
                MockResponse current = store.handleGet(resourcePath);
                if (current.code() != 200) {
                    return request;
                }
                JsonNode before = JSON.readTree(current.getBody().readUtf8());
                JsonNode patched = JsonPatch.apply(JSON.readTree(body), before);
                if (!patched.isObject()) {
                    return request;
                }
                JsonNode changed = admitted(resourcePath, (ObjectNode) patched.deepCopy());
                return changed.equals(patched) ? request : MergePatches.asJsonPatch(request, before, changed);
            }
            return request;
        } catch (Exception e) {
            // Not a JSON object or patch this step understands: the store answers it as it would have.
            return request;
        }
    }

    @Override
    public void shutdown() {
        store.shutdown();
    }

    @Override
    public void releaseResources() {
        store.releaseResources();
    }
}
