package dev.nightshift.web;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@code /status} of the large fleet, in the shape the agent writes (field for field, as
 * {@code StatusJson} does), made up: {@code pools} pools sharing {@code nodes} nodes, in every phase
 * and node state, with targets, ETAs, blocked drains and two weeks of nightly windows. Seeded: the
 * same document every time.
 */
final class SyntheticStatus {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> STATES = List.of("current", "current", "current", "outdated", "outdated", "draining", "updating",
            "cordoned", "unhealthy", "failed");
    private static final List<String> PHASES = List.of("CURRENT", "UPDATING", "WAITING_FOR_TURN", "WAITING_FOR_WINDOW", "PAUSED");
    private static final List<String> ACTIONS = List.of("NONE", "ROLL", "IN_PLACE", "KUBELET_RESTART");

    private SyntheticStatus() {
    }

    static String json(int pools, int nodes, Instant now) {
        SplittableRandom random = new SplittableRandom(29);
        ObjectNode root = JSON.createObjectNode();
        root.putObject("leaderElection").put("enabled", true).put("leading", true).put("identity", "nightshift-0")
                .put("leader", "nightshift-0");
        root.put("revision", "4f1c2a9e0b7d4c3e8a6f5b2d1c0e9f8a7b6c5d4e");
        root.put("latestCommit", "4f1c2a9e0b7d4c3e8a6f5b2d1c0e9f8a7b6c5d4e");
        root.put("specValid", true);
        root.putArray("specErrors");
        root.putNull("commitVerification");
        root.putArray("rejectedChanges");
        root.putArray("notices");
        root.putObject("window").put("alwaysOpen", false).put("open", false).put("specRolloutAllowed", false)
                .put("exclusionActive", false).put("nextOpens", now.plus(Duration.ofHours(6)).toString())
                .put("nextCloses", now.plus(Duration.ofHours(10)).toString());
        ObjectNode calendar = root.putObject("calendar").put("from", now.toString()).put("until", now.plus(Duration.ofDays(14)).toString());
        ArrayNode windows = calendar.putArray("windows");
        for (int day = 0; day < 14; day++) {
            Instant open = now.plus(Duration.ofHours(6 + 24L * day));
            windows.addObject().put("open", open.toString()).put("close", open.plus(Duration.ofHours(4)).toString()).put("source", "timeWindow");
        }
        calendar.putArray("exclusions").addObject().put("start", now.plus(Duration.ofDays(5)).toString())
                .put("end", now.plus(Duration.ofDays(6)).toString()).put("reason", "release freeze");
        calendar.put("truncated", false);
        root.putObject("inPlaceUpdatesPending").putArray("automatic");
        ArrayNode array = root.putArray("pools");
        int node = 0;
        for (int p = 0; p < pools; p++) {
            int size = nodes / pools + (p < nodes % pools ? 1 : 0);
            String name = String.format("pool-%03d", p);
            ObjectNode o = array.addObject();
            int[] counts = new int[STATES.size()];
            ArrayNode states = JSON.createArrayNode();
            for (int i = 0; i < size; i++, node++) {
                int s = random.nextInt(STATES.size());
                counts[s]++;
                states.addObject().put("node", String.format("%s-node-%05d", name, node)).put("state", STATES.get(s));
            }
            int current = counts[0] + counts[1] + counts[2];
            int failed = counts[9];
            o.put("pool", name).put("phase", PHASES.get(p % PHASES.size())).put("pendingAction", ACTIONS.get(p % ACTIONS.size()))
                    .put("nodes", size).put("current", current).put("outdated", size - current - failed).put("updating", counts[5] + counts[6])
                    .put("failed", failed).put("outdatedPastWindow", 0).put("progress", (double) current / Math.max(1, size - failed))
                    .put("maxSurge", 1).put("maxUnavailable", 0).put("progressing", true);
            if (PHASES.get(p % PHASES.size()).equals("WAITING_FOR_TURN")) {
                o.putObject("waitingFor").put("reason", "concurrency").putNull("pool")
                        .put("detail", "concurrency: 10 of 10 turns taken (pool-000, pool-001, pool-002, pool-003, pool-005, …)");
            } else {
                o.putNull("waitingFor");
            }
            o.putArray("awaitingSelection");
            o.putArray("adopted");
            o.putArray("unhealthyNodes");
            o.putArray("failedNodes");
            o.putArray("failedUpdates");
            o.putNull("lastError");
            o.putArray("refusedSteps");
            ArrayNode blocked = o.putArray("blockedDrains");
            if (p % 20 == 0) {
                blocked.addObject().put("node", name + "-node-x").put("pod", "shop/web-" + p).put("podDisruptionBudget", "web").put("attempts", 4);
            }
            ObjectNode target = o.putObject("target").put("revision", "4f1c2a9e0b7d4c3e8a6f5b2d1c0e9f8a7b6c5d4e").put("action", "ROLL");
            target.putArray("reasons").addObject().put("path", "spec.machine.image.version").put("old", "1631.0.0").put("new", "1632.0.0")
                    .put("effect", "roll");
            ObjectNode eta = o.putObject("eta").put("workSeconds", 600 + p).put("completesAt", now.plus(Duration.ofMinutes(30L * (p % 40)))
                    .toString());
            eta.putArray("windows");
            eta.putArray("assumptions").add("no faults");
            o.set("nodeStates", states);
        }
        root.putNull("lastError");
        root.put("lastReconcile", now.toString());
        return root.toString();
    }
}
