package dev.nightshift.agent.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A JSON-lines request log another process writes ({@code sandbox --kubernetes-request-log}, the machine API's
 * {@code machine-api-requests.jsonl}), read from a mark on: what one phase of the benchmark asked.
 */
final class ApiLog {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as logged. */
    record Request(String method, String path, int status, String userAgent) {

        String resourcePath() {
            int q = path.indexOf('?');
            return q < 0 ? path : path.substring(0, q);
        }

        String query() {
            int q = path.indexOf('?');
            return q < 0 ? "" : path.substring(q + 1);
        }

        boolean watch() {
            return query().matches("(.*&)?watch=(true|1)(&.*)?");
        }

        /** A GET of a collection, not a watch (as {@code SeenRequests.isList}). */
        boolean list() {
            if (!method.equals("GET") || watch()) {
                return false;
            }
            List<String> rest = rest();
            return rest != null && rest.size() == 1;
        }

        /** What kind of request, for a table: the verb and resource with the names left out, e.g. {@code PATCH nodes/NAME}. */
        String shape() {
            List<String> rest = rest();
            if (rest == null) {
                // The machine API's paths: /v1/pools/POOL/machines, /v1/machines/ID[/...]
                return method + " " + resourcePath().replaceFirst("^/v1/pools/[^/]+/", "/v1/pools/POOL/")
                        .replaceFirst("^/v1/machines/[^/]+", "/v1/machines/ID");
            }
            String verb = list() ? "LIST" : watch() ? "WATCH" : method;
            StringBuilder s = new StringBuilder(verb).append(' ').append(rest.get(0));
            if (rest.size() >= 2) {
                s.append("/NAME");
            }
            for (String sub : rest.subList(Math.min(2, rest.size()), rest.size())) {
                s.append('/').append(sub);
            }
            return s.toString();
        }

        /** The path after {@code /api/v1} or {@code /apis/GROUP/VERSION} and any {@code namespaces/NS}; null for other paths. */
        private List<String> rest() {
            List<String> s = Arrays.stream(resourcePath().split("/")).filter(p -> !p.isEmpty()).toList();
            List<String> rest;
            if (s.size() >= 3 && s.get(0).equals("api")) {
                rest = s.subList(2, s.size());
            } else if (s.size() >= 4 && s.get(0).equals("apis")) {
                rest = s.subList(3, s.size());
            } else {
                return null;
            }
            if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
                rest = rest.subList(2, rest.size());
            }
            return rest;
        }
    }

    private final Path file;

    ApiLog(Path file) {
        this.file = file;
    }

    /** How many lines the log holds now: a mark to read from later. */
    long mark() throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.count();
        }
    }

    /** The requests logged from line {@code from} to line {@code to} (marks), those {@code which} selects. */
    List<Request> between(long from, long to, Predicate<JsonNode> which) throws IOException {
        List<Request> requests = new ArrayList<>();
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            for (String line : lines.skip(from).limit(to - from).toList()) {
                JsonNode n = JSON.readTree(line);
                if (which.test(n)) {
                    requests.add(new Request(n.path("method").asText(), n.path("path").asText(), n.path("status").asInt(),
                            n.path("userAgent").asText("")));
                }
            }
        }
        return requests;
    }

    /** How many of each {@link Request#shape()}, in name order. */
    static Map<String, Long> shapes(List<Request> requests) {
        return requests.stream().collect(Collectors.groupingBy(Request::shape, TreeMap::new, Collectors.counting()));
    }
}
