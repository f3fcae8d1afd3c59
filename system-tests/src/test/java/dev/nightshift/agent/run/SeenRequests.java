package dev.nightshift.agent.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.nightshift.sandbox.embedded.RecordedRequest;

/** Questions the run tests ask of the embedded cluster's request log: what the cluster saw, not what the agent thinks it did. */
final class SeenRequests {

    private SeenRequests() {
    }

    /** A LIST: a GET of a collection (no object name) that is not a watch. Discovery and {@code /version} are not. */
    static boolean isList(RecordedRequest r) {
        if (!r.method().equals("GET") || r.query().matches("(.*&)?watch=(true|1)(&.*)?")) {
            return false;
        }
        List<String> s = Arrays.stream(r.resourcePath().split("/")).filter(p -> !p.isEmpty()).toList();
        List<String> rest;
        if (s.size() >= 3 && s.get(0).equals("api")) {
            rest = s.subList(2, s.size());
        } else if (s.size() >= 4 && s.get(0).equals("apis")) {
            rest = s.subList(3, s.size());
        } else {
            return false;
        }
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            rest = rest.subList(2, rest.size());
        }
        return rest.size() == 1;
    }

    /** An eviction of this pod, whatever the answer. */
    static boolean isEvictionOf(RecordedRequest r, String namespace, String pod) {
        return r.method().equals("POST") && r.resourcePath().equals("/api/v1/namespaces/" + namespace + "/pods/" + pod + "/eviction");
    }

    /** A write that took effect and made a node unschedulable. */
    static boolean isCordon(RecordedRequest r) {
        return r.isWrite() && r.succeeded() && r.resourcePath().startsWith("/api/v1/nodes/") && r.body().contains("\"unschedulable\":true");
    }

    /** A write that took effect and made a node schedulable again (a merge patch removing {@code unschedulable}). */
    static boolean isUncordon(RecordedRequest r) {
        return r.isWrite() && r.succeeded() && r.resourcePath().startsWith("/api/v1/nodes/")
                && (r.body().contains("\"unschedulable\":null") || r.body().contains("\"unschedulable\":false"));
    }

    /** The time between each request and the next. */
    static List<Duration> gaps(List<RecordedRequest> requests) {
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < requests.size(); i++) {
            gaps.add(Duration.between(requests.get(i - 1).time(), requests.get(i).time()));
        }
        return gaps;
    }
}
