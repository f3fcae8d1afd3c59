package dev.nightshift.agent.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

/**
 * The agent's HTTP port on the JDK's built-in server: webhooks, health, status, metrics.
 *
 * <p>The JDK's server gives each request a thread of the executor, which reads the request line and
 * headers and runs the handler with blocking reads that never time out. So that no client can hold
 * the threads {@code /healthz} needs (the kubelet would restart a healthy agent), every exchange has
 * a deadline ({@link ExchangeDeadline}): the request line and headers within {@link Deadlines#headers()},
 * then the handler, body and answer included, within {@link Deadlines#exchange()} (a handler may ask
 * for less, as the webhook does for its body). Past it the connection is closed and the thread is free
 * again. The threads are many more than the handlers that may be slow (the webhook reads at most
 * {@link GitWebhookHandler#CONCURRENT_BODIES} bodies at once), and requests beyond the threads and the
 * queue are refused by closing their connection at once rather than waiting behind slow ones.
 */
public final class AgentHttpServer implements AutoCloseable {

    /** The agent's default HTTP port. */
    public static final int DEFAULT_PORT = 9400;
    /** Threads serving requests: enough that the webhook's slow bodies and a few stalled clients leave most free. */
    static final int THREADS = 32;
    /** Requests waiting for a thread; more are refused (their connection closed) at once. */
    static final int QUEUE = 128;

    /**
     * How long a client may take.
     *
     * @param headers  from its first byte to the end of the request's headers
     * @param exchange from the end of the headers to the end of the answer, unless a handler sets less
     */
    public record Deadlines(Duration headers, Duration exchange) {

        /** A legitimate client sends its headers at once; 5 s stays within the kubelet's probe timeout of {@code manifests/}. */
        public static final Deadlines DEFAULT = new Deadlines(Duration.ofSeconds(5), Duration.ofSeconds(30));

        public Deadlines {
            if (headers.isNegative() || headers.isZero() || exchange.isNegative() || exchange.isZero()) {
                throw new IllegalArgumentException("HTTP deadlines must be positive");
            }
        }
    }

    /**
     * A handler that reads request bodies, under a deadline and a cap of its own. Every other handler
     * is served only requests without a body: one that comes with a body is answered and its connection
     * closed before the handler runs: the JDK's server would read the unread body when the exchange
     * closes, and a body that never comes would hold the thread.
     */
    public interface BodyReader extends HttpHandler {
    }

    private final HttpServer server;
    private final ThreadPoolExecutor executor;
    private final Deadlines deadlines;

    public AgentHttpServer(InetSocketAddress address) throws IOException {
        this(address, Deadlines.DEFAULT);
    }

    public AgentHttpServer(InetSocketAddress address, Deadlines deadlines) throws IOException {
        this.deadlines = deadlines;
        this.server = HttpServer.create(address, 0);
        this.executor = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "nightshift-http");
            t.setDaemon(true);
            return t;
        });
        executor.allowCoreThreadTimeOut(true);
        // The JDK closes the connection of a request the executor refuses.
        server.setExecutor(exchange -> executor.execute(() -> serve(exchange)));
    }

    /** One exchange of the JDK's server, from its request line to its answer, under its deadline. */
    private void serve(Runnable exchange) {
        ExchangeDeadline deadline = ExchangeDeadline.begin(deadlines.headers());
        try {
            exchange.run();
        } finally {
            deadline.end();
        }
    }

    /**
     * The headers are read when a handler starts: from then on, the exchange's deadline. A body for a
     * handler that reads none is refused here: 405 for a method the probes and {@code /status} do not
     * take, 400 for a GET or HEAD that says a body follows.
     */
    private final class HandlerStarts extends Filter {

        private final boolean readsBody;

        HandlerStarts(boolean readsBody) {
            this.readsBody = readsBody;
        }

        @Override
        public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
            if (ExchangeDeadline.current().map(d -> !d.rearm(deadlines.exchange(), () -> { })).orElse(false)) {
                throw new IOException("the request's headers came too late");
            }
            if (!readsBody && Answers.hasBody(exchange)) {
                String method = exchange.getRequestMethod();
                if (method.equals("GET") || method.equals("HEAD")) {
                    Answers.hangUp(exchange, 400, "no request body is taken here\n");
                }
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                Answers.hangUp(exchange, 405, "use GET\n");
            }
            chain.doFilter(exchange);
        }

        @Override
        public String description() {
            return "the exchange's deadline";
        }
    }

    public AgentHttpServer handle(String path, HttpHandler handler) {
        server.createContext(path, handler).getFilters().add(new HandlerStarts(handler instanceof BodyReader));
        return this;
    }

    public void start() {
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
