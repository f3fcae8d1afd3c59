package dev.nightshift.sandbox.embedded;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.net.URLDecoder;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * A watch that starts at the {@code resourceVersion} it asks for, as the API server's does: the mock's store starts
 * every watch when it is registered and, on open, sends ADDED for the objects it holds, but never DELETED for those
 * removed since the version the watcher listed at. An informer that listed, then saw an object deleted before its
 * watch was registered, would keep that object forever. Here the removals after the asked version are sent as DELETED
 * once the store's listener has opened.
 */
final class WatchFromVersion {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(WatchFromVersion.class);

    private WatchFromVersion() {
    }

    static MockResponse wrap(MockResponse watch, IndexedCrudDispatcher store, String path, String query) {
        long from = resourceVersion(query);
        if (from <= 0) {
            return watch;
        }
        List<IndexedCrudDispatcher.Tombstone> removed = store.removedSince(from, path);
        if (removed.isEmpty()) {
            return watch;
        }
        LOG.debug("a watch of {} from resourceVersion {} is told of {} removal(s) since", path, from, removed.size());
        WebSocketListener delegate = watch.getWebSocketListener();
        return watch.withWebSocketUpgrade(new WebSocketListener() {
            @Override
            public void onBeforeAccept(WebSocket ws, Response response) {
                delegate.onBeforeAccept(ws, response);
            }

            @Override
            public void onOpen(WebSocket ws, Response response) {
                delegate.onOpen(ws, response);
                for (IndexedCrudDispatcher.Tombstone t : removed) {
                    ws.send(deleted(t));
                }
            }

            @Override
            public void onMessage(WebSocket ws, String text) {
                delegate.onMessage(ws, text);
            }

            @Override
            public void onMessage(WebSocket ws, ByteString bytes) {
                delegate.onMessage(ws, bytes);
            }

            @Override
            public void onMessage(WebSocket ws, byte[] bytes) {
                delegate.onMessage(ws, bytes);
            }

            @Override
            public void onClosing(WebSocket ws, int code, String reason) {
                delegate.onClosing(ws, code, reason);
            }

            @Override
            public void onClosed(WebSocket ws, int code, String reason) {
                delegate.onClosed(ws, code, reason);
            }

            @Override
            public void onFailure(WebSocket ws, Throwable t, Response response) {
                delegate.onFailure(ws, t, response);
            }
        });
    }

    private static String deleted(IndexedCrudDispatcher.Tombstone t) {
        try {
            ObjectNode object = (ObjectNode) JSON.readTree(t.lastState());
            ((ObjectNode) object.with("metadata")).put("resourceVersion", Long.toString(t.resourceVersion()));
            ObjectNode event = JSON.createObjectNode().put("type", "DELETED");
            event.set("object", object);
            return JSON.writeValueAsString(event);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long resourceVersion(String query) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals("resourceVersion")) {
                try {
                    return Long.parseLong(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
