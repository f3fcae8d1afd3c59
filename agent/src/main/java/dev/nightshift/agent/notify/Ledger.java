package dev.nightshift.agent.notify;

import java.io.IOException;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What was delivered, per commit and destination: the last commit status and the keys of the events. Kept in the
 * cluster ({@link LedgerStore}) after every delivery, so that a restarted agent or a new leader neither sends a
 * delivered notification again nor forgets a status it still owes. The newest {@value #COMMITS_KEPT} commits are kept.
 *
 * <p>Per commit, one JSON document: {@code {"cluster": …, "updated": …, "delivered": {"<destination>": {"status":
 * {"state": …, "description": …}, "events": [keys…]}}}}.
 */
final class Ledger {

    static final int COMMITS_KEPT = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final class Kept {
        String cluster;
        Instant updated;
        final Map<String, CommitStatus> statuses = new TreeMap<>();
        final Map<String, Set<String>> events = new TreeMap<>();
    }

    private final LedgerStore store;
    private final Map<String, Kept> commits = new HashMap<>();
    private long version;
    private long saved;
    private final Object saving = new Object();

    Ledger(LedgerStore store) {
        this.store = store;
    }

    /** Reads what the cluster keeps; what cannot be read is left out (and may be sent again). */
    synchronized void load() {
        commits.clear();
        store.load().forEach((commit, text) -> {
            try {
                JsonNode root = JSON.readTree(text);
                Kept k = new Kept();
                k.cluster = root.path("cluster").asText("");
                k.updated = Instant.parse(root.path("updated").asText(Instant.EPOCH.toString()));
                root.path("delivered").fields().forEachRemaining(d -> {
                    JsonNode s = d.getValue().path("status");
                    if (s.isObject()) {
                        k.statuses.put(d.getKey(), new CommitStatus(k.cluster, commit, CommitState.valueOf(s.path("state").asText()),
                                s.path("description").asText("")));
                    }
                    Set<String> keys = new TreeSet<>();
                    d.getValue().path("events").forEach(e -> keys.add(e.asText()));
                    k.events.put(d.getKey(), keys);
                });
                commits.put(commit, k);
            } catch (IOException | RuntimeException e) {
                // An unreadable entry: its notifications may be sent again, nothing worse.
            }
        });
    }

    synchronized Optional<CommitStatus> lastStatus(String destination, String commit) {
        return Optional.ofNullable(commits.get(commit)).map(k -> k.statuses.get(destination));
    }

    synchronized boolean delivered(String destination, Notice notice) {
        Kept k = commits.get(notice.commit());
        if (k == null) {
            return false;
        }
        if (notice instanceof Notice.Status s) {
            return s.status().equals(k.statuses.get(destination));
        }
        return k.events.getOrDefault(destination, Set.of()).contains(notice.key());
    }

    /** The keys of the events delivered anywhere, by commit: said already. */
    synchronized Map<String, Set<String>> keys() {
        Map<String, Set<String>> all = new HashMap<>();
        commits.forEach((commit, k) -> k.events.values().forEach(keys -> all.computeIfAbsent(commit, c -> new TreeSet<>()).addAll(keys)));
        return all;
    }

    /** The last status delivered for each commit (to the one forge), oldest first. */
    synchronized Map<String, CommitStatus> statuses() {
        Map<String, CommitStatus> all = new LinkedHashMap<>();
        commits.entrySet().stream().sorted(Comparator.comparing(e -> e.getValue().updated))
                .forEach(e -> e.getValue().statuses.values().stream().findFirst().ifPresent(s -> all.put(e.getKey(), s)));
        return all;
    }

    /** Notes the delivery and keeps it in the cluster before the next notice of the destination goes out. */
    void delivered(String destination, Notice notice, String cluster, Instant now) {
        Map<String, String> snapshot;
        long v;
        synchronized (this) {
            Kept k = commits.computeIfAbsent(notice.commit(), c -> new Kept());
            k.cluster = cluster;
            k.updated = now;
            if (notice instanceof Notice.Status s) {
                k.statuses.put(destination, s.status());
            } else {
                k.events.computeIfAbsent(destination, d -> new TreeSet<>()).add(notice.key());
            }
            while (commits.size() > COMMITS_KEPT) {
                commits.entrySet().stream().min(Comparator.comparing(e -> e.getValue().updated)).map(Map.Entry::getKey)
                        .ifPresent(commits::remove);
            }
            snapshot = snapshot();
            v = ++version;
        }
        synchronized (saving) {
            // Destinations deliver on threads of their own: an older snapshot never overwrites a newer one.
            if (v > saved) {
                store.save(snapshot);
                saved = v;
            }
        }
    }

    private Map<String, String> snapshot() {
        Map<String, String> data = new TreeMap<>();
        commits.forEach((commit, k) -> {
            ObjectNode o = JSON.createObjectNode();
            o.put("cluster", k.cluster);
            o.put("updated", k.updated.toString());
            ObjectNode delivered = o.putObject("delivered");
            Set<String> destinations = new TreeSet<>(k.statuses.keySet());
            destinations.addAll(k.events.keySet());
            for (String d : destinations) {
                ObjectNode dn = delivered.putObject(d);
                Optional.ofNullable(k.statuses.get(d)).ifPresent(s -> dn.putObject("status").put("state", s.state().name())
                        .put("description", s.description()));
                k.events.getOrDefault(d, Set.of()).forEach(dn.putArray("events")::add);
            }
            data.put(commit, o.toString());
        });
        return data;
    }
}
