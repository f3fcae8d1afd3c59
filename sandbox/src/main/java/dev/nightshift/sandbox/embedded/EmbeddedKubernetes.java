package dev.nightshift.sandbox.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes API in this process, for {@code nightshift demo} and end-to-end tests: fabric8's mock server in CRUD
 * mode on 127.0.0.1 (plain HTTP), plus what the mock lacks and the agent needs — the eviction subresource with
 * PodDisruptionBudgets enforced, LISTs in pages ({@code limit} and {@code continue}, see {@link ListPages}),
 * discovery documents so that a real {@code kubectl} works, and a log of every request for asserting what the agent
 * did.
 *
 * <p>What still does not work, because the store does not: strategic-merge patch and server-side apply (so
 * {@code kubectl cordon/drain/apply} fail; use JSON or JSON merge patches), set-based label selectors in list
 * requests (ignored), field selectors other than {@code metadata.name}/{@code metadata.namespace}.
 *
 * <p>Evictions: see {@link DisruptionBudgets} for which pods count as healthy and how budgets are computed. A
 * refused eviction answers 429 with a {@code Status} whose {@code details.causes} holds a cause of type (JSON
 * {@code reason}) {@code DisruptionBudget} naming the budget, as the real API server does; {@link #throttleEvictions}
 * makes the next ones answer a plain 429 with {@code Retry-After}, as a throttling API server does.
 */
public final class EmbeddedKubernetes implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKubernetes.class);

    /** What {@code /version} reports unless told otherwise. */
    public static final String DEFAULT_GIT_VERSION = "v1.31.4";
    /** The names of the cluster, context and user in {@link #kubeconfig()}. */
    public static final String CONTEXT = "nightshift-embedded";
    /** The namespace of the kubeconfig's context and of {@link #client()}. */
    public static final String NAMESPACE = "default";

    /** The User-Agent under which the request log records a change made by {@link #changeBeforeNext}. */
    public static final String INTERFERENCE = "nightshift-embedded-interference";

    private static final String HOST = "127.0.0.1";

    private final KubernetesMockServer server;
    private final EvictionHandler evictions;
    private final EmbeddedDispatcher dispatcher;
    private final Discovery discovery;
    private final RequestLog requests;
    private final String gitVersion;
    private final String url;
    private final int port;
    private final KubernetesClient client;

    private EmbeddedKubernetes(KubernetesMockServer server, EvictionHandler evictions, EmbeddedDispatcher dispatcher,
            Discovery discovery, RequestLog requests, String gitVersion, int port) {
        this.server = server;
        this.discovery = discovery;
        this.evictions = evictions;
        this.dispatcher = dispatcher;
        this.requests = requests;
        this.gitVersion = gitVersion;
        this.port = port;
        this.url = "http://" + HOST + ":" + port;
        this.client = new KubernetesClientBuilder().withConfig(config()).build();
    }

    /** Starts a cluster reporting {@link #DEFAULT_GIT_VERSION} on an ephemeral port. */
    public static EmbeddedKubernetes start() {
        return start(DEFAULT_GIT_VERSION, 0);
    }

    /** Starts a cluster reporting {@code gitVersion} ({@code vMAJOR.MINOR.PATCH}) on an ephemeral port. */
    public static EmbeddedKubernetes start(String gitVersion) {
        return start(gitVersion, 0);
    }

    /**
     * Starts a cluster reporting {@code gitVersion} ({@code vMAJOR.MINOR.PATCH}, from which {@code /version}'s major
     * and minor are taken) on {@code port} of 127.0.0.1, 0 for an ephemeral one.
     */
    public static EmbeddedKubernetes start(String gitVersion, int port) {
        KubernetesSerialization json = new KubernetesSerialization();
        ApiResponses responses = new ApiResponses(json);
        IndexedCrudDispatcher store = new IndexedCrudDispatcher();
        RequestLog requests = new RequestLog();
        EvictionHandler evictions = new EvictionHandler(store, json, responses);
        MockWebServer web = new MockWebServer();
        // The mock server logs every request at INFO on java.util.logging, i.e. on stderr, which would bury the
        // demo's output; the request log replaces it. MockWebServer holds this logger statically, so the level stays.
        java.util.logging.Logger.getLogger(MockWebServer.class.getName()).setLevel(Level.WARNING);
        // kubectl and our client speak HTTP/1.1 over plain HTTP; no h2c upgrade to get wrong.
        web.setHttp2ClearTextEnabled(false);
        Discovery discovery = new Discovery(gitVersion, () -> HOST + ":" + web.getPort(), () -> crds(store, json), responses);
        EmbeddedDispatcher dispatcher = new EmbeddedDispatcher(store, discovery, evictions, responses, requests,
                Clock.systemUTC(), () -> forgetQueued(web));
        KubernetesMockServer server = new KubernetesMockServer(new Context(), web, new HashMap<>(), dispatcher, false);
        try {
            server.start(loopback(), port);
            return new EmbeddedKubernetes(server, evictions, dispatcher, discovery, requests, gitVersion, server.getPort());
        } catch (RuntimeException e) {
            try {
                server.shutdown();
            } catch (RuntimeException stop) {
                e.addSuppressed(stop);
            }
            throw e;
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(HOST, new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a literal address is always valid", e);
        }
    }

    /**
     * The mock server also queues every request it receives, for a {@code takeRequest()} nobody calls here; in a
     * long demo that queue would only grow. The dispatcher takes the request it has just answered off it.
     */
    private static void forgetQueued(MockWebServer web) {
        try {
            web.takeRequest(0, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<CustomResourceDefinition> crds(KubernetesCrudDispatcher store, KubernetesSerialization json) {
        MockResponse list = store.handleGet("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
        return json.unmarshal(list.getBody().readUtf8(), CustomResourceDefinitionList.class).getItems();
    }

    /** A client for this cluster, namespace {@value #NAMESPACE}, with fabric8's default retries; closed by {@link #close()}. */
    public KubernetesClient client() {
        return client;
    }

    /**
     * A new client configuration for this cluster, to build other clients from, e.g. one that does not retry 429s:
     * {@code new ConfigBuilder(config()).withRequestRetryBackoffLimit(0).build()}.
     */
    public Config config() {
        return new ConfigBuilder(Config.empty())
                .withMasterUrl(url)
                .withNamespace(NAMESPACE)
                .withHttp2Disable(true)
                .build();
    }

    /** The base URL, {@code http://127.0.0.1:PORT}. */
    public String url() {
        return url;
    }

    public int port() {
        return port;
    }

    /** What {@code /version} reports. */
    public String gitVersion() {
        return gitVersion;
    }

    /** A kubeconfig for this cluster: one cluster, user and context named {@value #CONTEXT}, no credentials. */
    public String kubeconfig() {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                users:
                - name: %1$s
                  user: {}
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                    namespace: %3$s
                current-context: %1$s
                preferences: {}
                """.formatted(CONTEXT, url, NAMESPACE);
    }

    /** Writes {@link #kubeconfig()} to {@code file} (creating its directory), for kubectl and {@code --kubeconfig}. */
    public Path writeKubeconfig(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return Files.writeString(file, kubeconfig());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kubeconfig " + file, e);
        }
    }

    /** Every request answered so far (since the last {@link #clearRequests()}), in the order they took effect. */
    public List<RecordedRequest> requests() {
        return requests.snapshot();
    }

    /**
     * From now on also writes every request to {@code file}, one JSON line each ({@code sequence}, {@code time},
     * {@code method}, {@code path}, {@code status}, {@code userAgent}), flushed as written: the request log for a reader
     * in another process, such as the scale benchmark counting the agent's requests.
     */
    public void writeRequestsTo(Path file) {
        requests.writeTo(file);
    }

    /**
     * Stores namespaced objects (pods, budgets) as if each had been created through the API, answering and watched as
     * such afterwards, but without the mock store's free-name check, which reads every object it holds: a cluster of
     * 100,000 pods would take hours to seed through POSTs. For seeding only; the names must be new.
     */
    public void createDirectly(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objects) {
        dispatcher.createDirectly(objects);
    }

    /** Forgets the logged requests, e.g. those of a test's set-up. */
    public void clearRequests() {
        requests.clear();
    }

    /**
     * The next {@code count} evictions (whatever their pod) answer a plain 429 with {@code Retry-After: 1} and no
     * {@code DisruptionBudget} cause, as an overloaded API server does; 0 ends it.
     */
    public void throttleEvictions(int count) {
        evictions.throttle(count);
    }

    /**
     * With {@code false}, {@code /readyz} answers 500 (its etcd check failing) until called with {@code true}: an API
     * server that answers but reports itself not ready. Everything else is served as before.
     */
    public void readyz(boolean ready) {
        discovery.ready(ready);
    }

    /**
     * Another client's write that lands between a client's read and its write: just before the next request with this
     * method and path (no query) whose body contains {@code bodyContains} is handled, the JSON merge patch
     * {@code mergePatch} is applied to the object at that path. The request then meets an object changed since it was
     * read, and a 409 if it carries the resourceVersion it read. Applied once; the request log records it as a PATCH from
     * User-Agent {@value #INTERFERENCE}, before the request it preceded.
     */
    public void changeBeforeNext(String method, String resourcePath, String bodyContains, String mergePatch) {
        dispatcher.interfere(new EmbeddedDispatcher.Interference(method, resourcePath, bodyContains, mergePatch));
    }

    /**
     * Adds a mutating admission step, as a mutating webhook of the real API server: every later POST, PUT and PATCH
     * stores the object as {@code admission} returns it (for example Cluster API's MachineDeployment defaulting).
     */
    public void admit(Admission admission) {
        dispatcher.admit(admission);
    }

    /** Closes the client and stops the server (open watches end). */
    @Override
    public void close() {
        try {
            client.close();
        } finally {
            try {
                server.shutdown();
            } catch (IllegalStateException stuck) {
                // The mock's own race: a watch event being written when its watch closes. The writer waits (up to 30 s)
                // for the event loop, which waits in the watch's onClosed for the writer. It frees itself; the server's
                // port and threads go when it does. Nothing a test judges is affected, so closing goes on.
                LOG.warn("the embedded API server did not stop within 10 s (a watch closed while an event was written to it); it stops by itself within 30 s");
            } finally {
                requests.close();
            }
        }
    }
}
