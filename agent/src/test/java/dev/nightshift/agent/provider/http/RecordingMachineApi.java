package dev.nightshift.agent.provider.http;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory machine API that keeps its promises (idempotency keys, atomic replace) and records
 * every call, for the provider's unit tests. The sandbox's {@code MachineApiCloud} is the real
 * reference; this one only holds records.
 */
final class RecordingMachineApi implements MachineApi {

    record Call(String operation, String subject, String key, Object body) {
    }

    final Map<String, ApiMachine> machines = new LinkedHashMap<>();
    final Map<String, ApiMachine> byKey = new HashMap<>();
    final List<Call> calls = new ArrayList<>();
    private int next;

    ApiMachine put(ApiMachine m) {
        machines.put(m.id(), m);
        return m;
    }

    @Override
    public synchronized List<ApiMachine> list(String pool) {
        calls.add(new Call("list", pool, null, null));
        return machines.values().stream().filter(m -> m.pool().equals(pool)).toList();
    }

    @Override
    public synchronized ApiMachine create(String pool, String key, MachineRequest request) {
        calls.add(new Call("create", pool, key, request));
        return byKey.computeIfAbsent(key, k -> put(fresh(pool, request)));
    }

    private ApiMachine fresh(String pool, MachineRequest request) {
        String id = "m-" + (++next);
        return new ApiMachine(id, pool, pool + "-node-" + next, MachineState.CREATING, Instant.parse("2026-11-24T10:00:00Z"),
                request.annotations(), null);
    }

    @Override
    public synchronized ApiMachine replace(String id, String key, MachineRequest request) {
        calls.add(new Call("replace", id, key, request));
        return byKey.computeIfAbsent(key, k -> {
            ApiMachine old = machines.get(id);
            put(old.withState(MachineState.DELETING, null));
            return put(fresh(old.pool(), request));
        });
    }

    @Override
    public synchronized boolean delete(String id) {
        calls.add(new Call("delete", id, null, null));
        ApiMachine m = machines.get(id);
        if (m == null) {
            return false;
        }
        put(m.withState(MachineState.DELETING, null));
        return true;
    }

    @Override
    public synchronized void update(String id, String key, UpdateRequest request) {
        calls.add(new Call("update", id, key, request));
        if (byKey.putIfAbsent(key, machines.get(id)) == null) {
            put(machines.get(id).withState(MachineState.UPDATING, null));
        }
    }

    @Override
    public synchronized ApiMachine patchAnnotations(String id, Map<String, String> annotations) {
        calls.add(new Call("patch", id, null, annotations));
        Map<String, String> merged = new HashMap<>(machines.get(id).annotations());
        annotations.forEach((k, v) -> {
            if (v == null) {
                merged.remove(k);
            } else {
                merged.put(k, v);
            }
        });
        return put(machines.get(id).withAnnotations(merged));
    }

    List<Call> calls(String operation) {
        return calls.stream().filter(c -> c.operation().equals(operation)).toList();
    }
}
