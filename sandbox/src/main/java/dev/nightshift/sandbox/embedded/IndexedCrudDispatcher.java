package dev.nightshift.sandbox.embedded;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The mock's CRUD store with its objects also found by name. The store finds an object by testing every object it
 * holds against the request's attributes (and copies them all first, for a GET): at 100,000 pods each GET, PATCH or PUT
 * of one object costs tens of milliseconds, and the kubelet heartbeats of 5,000 nodes could not be answered. Here an
 * object found once is remembered under its name; a lookup tries the remembered keys first, checking that each is still
 * in the store and matches, and only when none does (a new name, or an object whose labels changed and so its key)
 * scans as before. Every object the store puts is remembered as it is put ({@link #processEvent}), computing its key as
 * the store does and checking that the store holds it; while every key put was so remembered, a name not remembered is
 * not in the store, and a lookup of it (a GET before a create, a 404) answers at once too. The answers are the store's
 * own: the same entry, the same body.
 *
 * <p>Called under {@link EmbeddedDispatcher}'s lock, as every access to the store is; synchronized all the same.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

    private static final String NAME = "name";

    /** Keys of the store's objects by name; some may be stale (deleted, or replaced by a key with other labels). */
    private final Map<String, List<AttributeSet>> byName = new HashMap<>();
    /** The same keys by kind (plural) and namespace, for {@link #objects}; stale ones too, dropped as they are met. */
    private final Map<String, java.util.Set<AttributeSet>> byCollection = new HashMap<>();
    /** Every key the store holds is in {@link #byName}: a name found there in no live key is in no key of the store. */
    private boolean complete = true;
    /** Objects removed from the store, oldest first, each with the resourceVersion of its removal. */
    private final List<Tombstone> tombstones = new ArrayList<>();
    private static final int MAX_TOMBSTONES = 10_000;

    /** An object removed from the store: its key, its last state, and the resourceVersion its removal took. */
    record Tombstone(long resourceVersion, AttributeSet key, String lastState) {
    }

    /**
     * The objects a watch from {@code resourceVersion} on {@code path} would have seen removed after it and that the
     * store does not hold again: the store's own watch starts at its registration and never tells them.
     */
    synchronized List<Tombstone> removedSince(long resourceVersion, String path) {
        AttributeSet query = getAttributeExtractor().fromPath(path);
        List<Tombstone> since = new ArrayList<>();
        for (Tombstone t : tombstones) {
            if (t.resourceVersion() > resourceVersion && t.key().matches(query) && !heldAgain(t.key(), query)) {
                since.add(t);
            }
        }
        return since;
    }

    /** The store holds an object of that name (and namespace) again that the watch sees: its ADDED on open tells it. */
    private boolean heldAgain(AttributeSet removedKey, AttributeSet query) {
        String name = nameOf(removedKey);
        if (name == null) {
            return map.containsKey(removedKey);
        }
        AttributeSet same = AttributeSet.merge(query, new AttributeSet(new Attribute(NAME, name)));
        Attribute namespace = removedKey.getAttribute("namespace");
        if (namespace != null) {
            same = AttributeSet.merge(same, new AttributeSet(namespace));
        }
        return findResource(same) != null;
    }

    /** The store puts (or removes) an object: its new key is remembered under its name. */
    @Override
    public synchronized void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
            GenericKubernetesResource resource, String newState) {
        String removed = newState == null && oldAttributes != null ? map.get(oldAttributes) : null;
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        if (newState == null) {
            if (removed != null) {
                tombstones.add(new Tombstone(requestResourceVersion(), oldAttributes, removed));
                if (tombstones.size() > MAX_TOMBSTONES) {
                    tombstones.remove(0);
                }
            }
            return;
        }
        AttributeSet key = storedKey(pathAttributes, resource, newState);
        String name = key == null ? null : nameOf(key);
        if (name != null && map.containsKey(key)) {
            remember(name, key);
        } else {
            complete = false;
        }
    }

    /** The key under which the store puts an object, computed as {@link KubernetesCrudDispatcher#processEvent} does. */
    private AttributeSet storedKey(AttributeSet pathAttributes, GenericKubernetesResource resource, String newState) {
        if (!(getAttributeExtractor() instanceof KubernetesAttributesExtractor extractor)) {
            return null;
        }
        AttributeSet key = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
        return key.containsKey("plural") ? key : AttributeSet.merge(pathAttributes, key);
    }

    @Override
    public synchronized void reset() {
        super.reset();
        byName.clear();
        byCollection.clear();
        tombstones.clear();
        complete = true;
    }

    @Override
    public synchronized Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        String name = nameOf(query);
        if (name == null) {
            return super.findResource(query);
        }
        Map.Entry<AttributeSet, String> known = remembered(name, query);
        if (known != null || complete) {
            return known;
        }
        Map.Entry<AttributeSet, String> found = super.findResource(query);
        if (found != null) {
            remember(name, found.getKey());
        }
        return found;
    }

    /** A GET of one object by its path (no subresource, no watch) answers from the remembered keys when it can. */
    @Override
    public synchronized MockResponse handleGet(String path) {
        int q = path.indexOf('?');
        String resourcePath = q < 0 ? path : path.substring(0, q);
        if (q < 0 || !path.substring(q).contains("watch=")) {
            AttributeSet query = getAttributeExtractor().fromPath(path);
            String name = nameOf(query);
            if (name != null && resourcePath.endsWith("/" + name)) {
                Map.Entry<AttributeSet, String> entry = findResource(query);
                if (entry != null) {
                    return new MockResponse().setResponseCode(200).setBody(entry.getValue());
                }
                // Not in the store: findResource looked as the store's GET would (every object, unless every key is
                // remembered), so the store would answer the same empty 404 after a scan of its own. At 100,000 pods
                // those two scans were seconds per eviction of a pod gone or a ReplicaSet never stored.
                return new MockResponse().setResponseCode(404);
            }
        }
        return super.handleGet(path);
    }

    /**
     * A DELETE of one object by its path, found from the remembered keys: the store's own removal (the same event, the
     * same watches told, the same answer: 200 with the object as it was), without its scan of every object, which at
     * 100,000 pods took most of a second for each evicted pod. An object with finalizers is left to the store (it is
     * marked, not removed), as is any other path.
     */
    @Override
    public synchronized MockResponse handleDelete(String path) {
        int q = path.indexOf('?');
        String resourcePath = q < 0 ? path : path.substring(0, q);
        AttributeSet query = getAttributeExtractor().fromPath(path);
        String name = nameOf(query);
        if (name == null || !resourcePath.endsWith("/" + name)) {
            return super.handleDelete(path);
        }
        Map.Entry<AttributeSet, String> entry = findResource(query);
        if (entry == null) {
            return new MockResponse().setResponseCode(404);
        }
        GenericKubernetesResource stored = io.fabric8.kubernetes.client.utils.Serialization.unmarshal(entry.getValue(),
                GenericKubernetesResource.class);
        if (stored.getMetadata() != null && stored.getMetadata().getFinalizers() != null
                && !stored.getMetadata().getFinalizers().isEmpty()) {
            return super.handleDelete(path);
        }
        processEvent(path, query, entry.getKey(), null, null);
        return new MockResponse().setResponseCode(200).setBody(entry.getValue());
    }

    /**
     * The stored objects of one kind ({@code plural}) in one namespace, as the store holds them (the bodies a GET of the
     * collection would list), without reading every object: the eviction subresource reads a namespace's budgets and
     * pods at each eviction, which at 100,000 pods were two scans of the whole store.
     */
    synchronized List<String> objects(String plural, String namespace) {
        List<String> found = new ArrayList<>();
        if (!complete) {
            map.forEach((key, body) -> {
                if (inCollection(key, plural, namespace)) {
                    found.add(body);
                }
            });
            return found;
        }
        java.util.Set<AttributeSet> keys = byCollection.get(collection(plural, namespace));
        if (keys == null) {
            return found;
        }
        keys.removeIf(key -> !map.containsKey(key));
        for (AttributeSet key : keys) {
            found.add(map.get(key));
        }
        return found;
    }

    private static boolean inCollection(AttributeSet key, String plural, String namespace) {
        return plural.equals(single(key, "plural")) && namespace.equals(single(key, "namespace"));
    }

    private static String collection(String plural, String namespace) {
        return plural + "/" + namespace;
    }

    private static String single(AttributeSet attributes, String name) {
        Attribute a = attributes.getAttribute(name);
        return a == null || a.getValues().size() != 1 ? null : String.valueOf(a.getValues().get(0));
    }

    private Map.Entry<AttributeSet, String> remembered(String name, AttributeSet query) {
        List<AttributeSet> keys = byName.get(name);
        if (keys == null) {
            return null;
        }
        keys.removeIf(key -> !map.containsKey(key));
        for (AttributeSet key : keys) {
            if (key.matches(query)) {
                return Map.entry(key, map.get(key));
            }
        }
        return null;
    }

    private void remember(String name, AttributeSet key) {
        List<AttributeSet> keys = byName.computeIfAbsent(name, n -> new ArrayList<>(1));
        if (!keys.contains(key)) {
            keys.add(key);
        }
        String plural = single(key, "plural");
        String namespace = single(key, "namespace");
        if (plural != null && namespace != null) {
            byCollection.computeIfAbsent(collection(plural, namespace), c -> new java.util.HashSet<>()).add(key);
        }
    }

    private static String nameOf(AttributeSet attributes) {
        Attribute name = attributes.getAttribute(NAME);
        return name == null || name.getValues().size() != 1 ? null : String.valueOf(name.getValues().get(0));
    }
}
