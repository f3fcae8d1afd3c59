package dev.nightshift.sandbox.embedded;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.mockwebserver.http.MockResponse;

/**
 * LISTs in pages, as the real API server serves them (the mock's store ignores {@code limit}): a request with
 * {@code limit=n} gets at most n items and, when more remain, {@code metadata.continue} and
 * {@code metadata.remainingItemCount}; a request with {@code continue} gets the next page of the same list. Every
 * page of one list comes from the snapshot its first page was cut from, with that snapshot's resourceVersion, whatever
 * changed in between — the consistency a real server gives by reading each page at the first page's resourceVersion.
 * A continue token this server no longer holds answers 410 Gone with reason {@code Expired}, as a real server does once
 * that resourceVersion is compacted away; the client then starts the list again.
 *
 * <p>Called under the dispatcher's lock; synchronized all the same, being cheap.
 */
final class ListPages {

    /** Lists being paged through at once; the oldest is forgotten first (its next page then answers 410). */
    private static final int KEPT = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ApiResponses responses;
    private final Map<Long, Snapshot> snapshots = new LinkedHashMap<>(KEPT, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Snapshot> eldest) {
            return size() > KEPT;
        }
    };
    private long lastId;

    /** One list as its first page saw it: the list object without its items, and the items. */
    private record Snapshot(String resourcePath, ObjectNode list, ArrayNode items) {
    }

    /** Where the next page starts, opaque to clients as a real server's token is. */
    private record Token(long snapshot, int offset) {
        String encode() {
            return Base64.getUrlEncoder().withoutPadding().encodeToString((snapshot + ":" + offset).getBytes(StandardCharsets.UTF_8));
        }

        static Optional<Token> decode(String text) {
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split(":");
                return parts.length == 2 ? Optional.of(new Token(Long.parseLong(parts[0]), Integer.parseInt(parts[1]))) : Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
    }

    ListPages(ApiResponses responses) {
        this.responses = responses;
    }

    /** Whether a GET with this query is a list this class pages: it asks for a limit or continues a list, and is no watch. */
    static boolean paged(String query) {
        Map<String, String> q = parameters(query);
        return !"true".equals(q.get("watch")) && (q.containsKey("continue") || positive(q.get("limit")).isPresent());
    }

    /**
     * The page a paged list request asks for. {@code fullList} answers the request whole, as the store does; it is asked
     * only for a first page.
     */
    synchronized MockResponse page(String resourcePath, String query, Supplier<MockResponse> fullList) {
        Map<String, String> q = parameters(query);
        int limit = positive(q.get("limit")).orElse(Integer.MAX_VALUE);
        String cont = q.get("continue");
        if (cont != null && !cont.isEmpty()) {
            Optional<Token> token = Token.decode(cont);
            Snapshot snapshot = token.map(t -> snapshots.get(t.snapshot())).orElse(null);
            if (token.isEmpty() || snapshot == null) {
                return responses.failure(410, "Expired", "The provided continue parameter is too old to display a consistent list "
                        + "result. You can start a new list without the continue parameter.");
            }
            if (!snapshot.resourcePath().equals(resourcePath)) {
                return responses.failure(400, "BadRequest", "the continue token was issued for " + snapshot.resourcePath()
                        + ", not " + resourcePath);
            }
            return cut(token.get().snapshot(), snapshot, token.get().offset(), limit);
        }
        MockResponse whole = fullList.get();
        if (whole.code() != 200 || whole.getBody() == null) {
            return whole;
        }
        String body = whole.getBody().readUtf8();
        JsonNode list;
        try {
            list = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return whole.setBody(body);
        }
        if (!(list instanceof ObjectNode object) || !(list.get("items") instanceof ArrayNode items) || items.size() <= limit) {
            // Not a list, or one page holds it all: answered as it came.
            return whole.setBody(body);
        }
        object.remove("items");
        Snapshot snapshot = new Snapshot(resourcePath, object, items);
        long id = ++lastId;
        snapshots.put(id, snapshot);
        return cut(id, snapshot, 0, limit);
    }

    private MockResponse cut(long id, Snapshot snapshot, int offset, int limit) {
        ObjectNode page = snapshot.list().deepCopy();
        ArrayNode items = page.putArray("items");
        int end = (int) Math.min((long) offset + limit, snapshot.items().size());
        for (int i = offset; i < end; i++) {
            items.add(snapshot.items().get(i));
        }
        ObjectNode metadata = page.get("metadata") instanceof ObjectNode m ? m : page.putObject("metadata");
        int remaining = snapshot.items().size() - end;
        if (remaining > 0) {
            metadata.put("continue", new Token(id, end).encode());
            metadata.put("remainingItemCount", remaining);
        } else {
            metadata.remove("continue");
            metadata.remove("remainingItemCount");
            // The last page is served: nobody continues this list.
            snapshots.remove(id);
        }
        try {
            return new MockResponse().setResponseCode(200).setHeader("Content-Type", ApiResponses.JSON)
                    .setBody(JSON.writeValueAsString(page));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree read from JSON writes back", e);
        }
    }

    private static Optional<Integer> positive(String text) {
        try {
            return Optional.ofNullable(text).map(Integer::parseInt).filter(n -> n > 0);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Map<String, String> parameters(String query) {
        Map<String, String> parameters = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            parameters.put(key, value);
        }
        return parameters;
    }
}
