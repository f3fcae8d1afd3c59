package dev.nightshift.sandbox.embedded;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A mutating admission step, as a webhook the real API server calls before it stores a write: it sees the object
 * that a POST, PUT or PATCH would store and may change it. The stored object, the answer and the watch events all
 * carry the change; the request log keeps the body as the client sent it.
 */
@FunctionalInterface
public interface Admission {

    /**
     * @param resourcePath where the write goes, without query: the collection for a POST
     *                     ({@code /apis/g/v/namespaces/ns/plural}), the object for a PUT or PATCH
     * @param object       the object about to be stored; change it in place or return another one
     * @return the object to store
     */
    ObjectNode admit(String resourcePath, ObjectNode object);
}
