package dev.nightshift.agent.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpExchange;

/** Plain-text answers, and the one way to answer a request whose body will not be read. */
final class Answers {

    private Answers() {
    }

    /** Whether the request says a body follows: a {@code Content-Length} above 0, or a {@code Transfer-Encoding}. */
    static boolean hasBody(HttpExchange exchange) {
        return declaredLength(exchange) > 0 || exchange.getRequestHeaders().containsKey("Transfer-Encoding");
    }

    /** The request's {@code Content-Length}, or -1 (chunked, or none). */
    static long declaredLength(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Content-Length");
        try {
            return header == null ? -1 : Long.parseLong(header.strip());
        } catch (NumberFormatException e) {
            return -1; // the JDK's server refuses a malformed length before a handler sees the request
        }
    }

    /**
     * Answers and closes the connection without reading the rest of the request's body. Closing the
     * exchange would first read up to 64 KiB more of it (the JDK's server drains it to keep the
     * connection), from a client that may never send them; the exception makes the server close the
     * connection instead, and forget it.
     *
     * @throws IOException always, once the answer is sent
     */
    static void hangUp(HttpExchange exchange, int status, String text) throws IOException {
        exchange.getResponseHeaders().set("Connection", "close");
        send(exchange, status, text);
        throw new IOException("answered " + status + " and closed the connection without reading the request's body");
    }

    /** Sends the answer, flushed, without closing the exchange. */
    static void send(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        OutputStream out = exchange.getResponseBody();
        out.write(bytes);
        out.flush();
    }
}
