package dev.nightshift.agent.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

/** The agent's HTTP port on the JDK's built-in server: webhooks, health, status, metrics. */
public final class AgentHttpServer implements AutoCloseable {

    /** The agent's default HTTP port. */
    public static final int DEFAULT_PORT = 9400;

    private final HttpServer server;
    private final ExecutorService executor;

    public AgentHttpServer(InetSocketAddress address) throws IOException {
        this.server = HttpServer.create(address, 0);
        this.executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "nightshift-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
    }

    public AgentHttpServer handle(String path, HttpHandler handler) {
        server.createContext(path, handler);
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
