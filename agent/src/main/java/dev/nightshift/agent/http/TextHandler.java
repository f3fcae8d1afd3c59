package dev.nightshift.agent.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/** Answers GET with what a supplier returns now: a status code and a body. */
public final class TextHandler implements HttpHandler {

    /** A response: status code, content type and body. */
    public record Response(int status, String contentType, String body) {
    }

    private final Supplier<Response> response;

    public TextHandler(Supplier<Response> response) {
        this.response = response;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            Response r = response.get();
            byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", r.contentType());
            exchange.sendResponseHeaders(r.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }
}
