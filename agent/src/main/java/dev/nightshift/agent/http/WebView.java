package dev.nightshift.agent.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The agent's read-only web page: one HTML page, one script and one style sheet from the agent's
 * own resources, which read {@code /status} from the same origin. Nothing is fetched from anywhere
 * else (agents run in clusters without internet), nothing is written, and the page shows only what
 * {@code /status} shows, so it needs no protection {@code /status} does not have.
 *
 * <p>Served on the context {@code /}, which the JDK's server also gives every path no other context
 * takes: those are answered 404, as before the page existed.
 */
public final class WebView implements HttpHandler {

    /**
     * Scripts and styles from the agent only, no inline script or style, no plug-ins, no framing, and
     * {@code connect-src 'self'}: the page can read {@code /status} and nothing else. The icon is an
     * empty {@code data:} URL, so that the browser asks for no {@code /favicon.ico}.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /** A file as served: its bytes, type and entity tag. */
    record Resource(byte[] body, String contentType, String etag) {
    }

    private final Map<String, Resource> resources;

    public WebView() {
        this.resources = Map.of(
                "/", load("index.html", "text/html; charset=utf-8"),
                "/ui/app.js", load("app.js", "text/javascript; charset=utf-8"),
                "/ui/app.css", load("app.css", "text/css; charset=utf-8"));
    }

    private static Resource load(String name, String contentType) {
        try (InputStream in = WebView.class.getResourceAsStream("web/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the agent's jar lacks dev/nightshift/agent/http/web/" + name);
            }
            byte[] body = in.readAllBytes();
            return new Resource(body, contentType, "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body), 0, 8)
                    + "\"");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The resource served at {@code path}, if any. */
    Resource resource(String path) {
        return resources.get(path);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            Resource r = resources.get(exchange.getRequestURI().getPath());
            if (r == null) {
                text(exchange, 404, "not found\n");
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                text(exchange, 405, "use GET\n");
                return;
            }
            Headers h = exchange.getResponseHeaders();
            h.set("Content-Type", r.contentType());
            h.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
            h.set("X-Content-Type-Options", "nosniff");
            h.set("X-Frame-Options", "DENY");
            h.set("Referrer-Policy", "no-referrer");
            // Checked again at every load (an upgraded agent serves a new page at once), cheaply: 304 while unchanged.
            h.set("Cache-Control", "no-cache");
            h.set("ETag", r.etag());
            if (r.etag().equals(exchange.getRequestHeaders().getFirst("If-None-Match"))) {
                exchange.sendResponseHeaders(304, -1);
                return;
            }
            if (method.equals("HEAD")) {
                h.set("Content-Length", Integer.toString(r.body().length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, r.body().length);
            exchange.getResponseBody().write(r.body());
        }
    }

    private static void text(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
