package dev.nightshift.machineapi.stub;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import dev.nightshift.machineapi.stub.api.V1Api;
import dev.nightshift.machineapi.stub.model.Machine;
import dev.nightshift.machineapi.stub.model.MachineList;
import dev.nightshift.machineapi.stub.model.MachinePatch;
import dev.nightshift.machineapi.stub.model.MachineRequest;
import dev.nightshift.machineapi.stub.model.UpdateRequest;

/**
 * An adapter written against nothing but the interface and models that openapi-generator made
 * from {@code machine-api/v1.yaml}, as an adapter author starts one: machines in memory, one per
 * idempotency key. An operation renamed or removed in the contract, a schema renamed or a field's
 * type changed makes this class stop compiling. Errors are thrown as {@link ApiError} (a Spring
 * application maps it to its status and an {@code Error} body with an {@code @ExceptionHandler}).
 * Updates finish at once: {@code updating} is never seen, which the contract allows.
 */
final class InMemoryAdapter implements V1Api {

    /** An error answer: its status and the contract's {@code {"message"}} body. */
    static final class ApiError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final HttpStatus status;

        ApiError(HttpStatus status, String message) {
            super(message);
            this.status = status;
        }

        HttpStatus status() {
            return status;
        }

        dev.nightshift.machineapi.stub.model.Error body() {
            return new dev.nightshift.machineapi.stub.model.Error(getMessage());
        }
    }

    private final Clock clock;
    private final Map<String, Machine> machines = new LinkedHashMap<>();
    /** Idempotency-Key → the machine its first request made. */
    private final Map<String, String> keys = new HashMap<>();
    private int created;

    InMemoryAdapter(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized ResponseEntity<MachineList> listMachines(String pool) {
        return ResponseEntity.ok(new MachineList(machines.values().stream().filter(m -> m.getPool().equals(pool)).toList()));
    }

    @Override
    public synchronized ResponseEntity<Machine> createMachine(String pool, String idempotencyKey, MachineRequest request) {
        String seen = keys.get(idempotencyKey);
        if (seen != null) {
            return ResponseEntity.ok(machines.get(seen));
        }
        Machine machine = launch(pool, idempotencyKey, request);
        return ResponseEntity.status(HttpStatus.CREATED).body(machine);
    }

    @Override
    public synchronized ResponseEntity<Machine> replaceMachine(String id, String idempotencyKey, MachineRequest request) {
        String seen = keys.get(idempotencyKey);
        if (seen != null) {
            return ResponseEntity.status(HttpStatus.ACCEPTED).body(machines.get(seen));
        }
        Machine old = known(id);
        if (old.getState() == Machine.StateEnum.DELETING) {
            throw new ApiError(HttpStatus.CONFLICT, "machine " + id + " is already being deleted; it is not replaced");
        }
        Machine replacement = launch(old.getPool(), idempotencyKey, request);
        old.setState(Machine.StateEnum.DELETING);
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(replacement);
    }

    @Override
    public synchronized ResponseEntity<Void> deleteMachine(String id) {
        Machine machine = machines.get(id);
        if (machine == null) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).build();
        }
        machine.setState(Machine.StateEnum.DELETING);
        return ResponseEntity.status(HttpStatus.ACCEPTED).build();
    }

    @Override
    public synchronized ResponseEntity<Void> updateMachine(String id, String idempotencyKey, UpdateRequest request) {
        if (keys.putIfAbsent(idempotencyKey, id) == null) {
            Machine machine = known(id);
            if (machine.getState() != Machine.StateEnum.RUNNING && machine.getState() != Machine.StateEnum.FAILED) {
                keys.remove(idempotencyKey);
                throw new ApiError(HttpStatus.CONFLICT, "machine " + id + " is " + machine.getState() + "; only a running machine is updated");
            }
            machine.getAnnotations().putAll(request.getAnnotations());
            machine.setState(Machine.StateEnum.RUNNING);
            machine.setMessage(null);
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED).build();
    }

    @Override
    public synchronized ResponseEntity<Machine> patchMachine(String id, MachinePatch patch) {
        Machine machine = known(id);
        patch.getAnnotations().forEach((key, value) -> {
            if (value == null) {
                machine.getAnnotations().remove(key);
            } else {
                machine.getAnnotations().put(key, value);
            }
        });
        return ResponseEntity.ok(machine);
    }

    /** A machine made running at once, registering as a node of its own name. */
    private Machine launch(String pool, String idempotencyKey, MachineRequest request) {
        String id = "m-" + pool + "-" + ++created;
        Machine machine = new Machine(id, pool, id, Machine.StateEnum.RUNNING, OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC),
                new HashMap<>(request.getAnnotations()), null);
        machines.put(id, machine);
        keys.put(idempotencyKey, id);
        return machine;
    }

    private Machine known(String id) {
        Machine machine = machines.get(id);
        if (machine == null) {
            throw new ApiError(HttpStatus.NOT_FOUND, "no machine " + id);
        }
        return machine;
    }
}
