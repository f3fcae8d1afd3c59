package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class MachineApiJsonTest {

    private static final MachineSpec SPEC = new MachineSpec("m5.large", new MachineSpec.Image("gardenlinux", "1632.0.0"),
            new MachineSpec.Volume("gp3", "50Gi"), "containerd", "1.31.4", Map.of("kubeReserved", Map.of("cpu", "80m")),
            Map.of("subnet", "a"));

    @Test
    void requestsAndMachinesReadBackAsWritten() {
        MachineRequest request = new MachineRequest(Map.of("team", "web"), Map.of("nightshift.dev/roll-hash", "abc"),
                List.of(new MachineRequest.Taint("dedicated", null, "NoSchedule")), SPEC);
        UpdateRequest update = new UpdateRequest(UpdateRequest.Operation.RESTART_KUBELET, Map.of("k", "v"),
                new MachineSpec("m5.large", new MachineSpec.Image("gardenlinux", "1632.0.0"), null, "containerd", "1.31.4", Map.of(), Map.of()));
        ApiMachine machine = new ApiMachine("m-1", "web", null, MachineState.CREATING, Instant.parse("2026-11-24T10:00:00Z"),
                Map.of("a", "b"), null);

        assertThat(MachineApiJson.readMachineRequest(MachineApiJson.machineRequest(request))).isEqualTo(request);
        assertThat(MachineApiJson.readUpdateRequest(MachineApiJson.updateRequest(update))).isEqualTo(update);
        assertThat(MachineApiJson.readMachine(MachineApiJson.machine(machine))).isEqualTo(machine);
        assertThat(MachineApiJson.machine(machine)).as("null fields are written, as the API requires them")
                .contains("\"nodeName\":null").contains("\"message\":null");
        assertThat(MachineApiJson.readMachineList(MachineApiJson.machineList(List.of(machine, machine.withNodeName("web-1")))))
                .extracting(ApiMachine::nodeName).containsExactly(null, "web-1");
    }

    @Test
    void whatTheApiRequiresIsRequiredAndTheErrorNamesTheField() {
        assertThatThrownBy(() -> MachineApiJson.readMachineRequest("{\"annotations\": {}, \"taints\": [], \"spec\": {}}"))
                .hasMessage("field \"labels\" must be an object of strings");
        assertThatThrownBy(() -> MachineApiJson.readUpdateRequest("{\"operation\": \"reboot\", \"annotations\": {}, \"spec\": {}}"))
                .hasMessage("field \"operation\" is \"reboot\", not in-place-update or restart-kubelet");
        assertThatThrownBy(() -> MachineApiJson.readMachineList("{\"machines\": [{\"id\": \"m-1\", \"pool\": \"web\", \"state\": \"zombie\","
                + " \"createdAt\": \"2026-11-24T10:00:00Z\"}]}"))
                .hasMessage("field \"machines[0].state\" is \"zombie\", not one of creating, running, updating, deleting, failed");
        assertThatThrownBy(() -> MachineApiJson.readMachine("{\"pool\": \"web\"}")).hasMessage("field \"id\" must be a non-empty string");
        assertThatThrownBy(() -> MachineApiJson.readMachine("{\"id\": \"m\", \"pool\": \"web\", \"state\": \"running\","
                + " \"createdAt\": \"yesterday\"}")).hasMessage("field \"createdAt\" is \"yesterday\", not an RFC 3339 time");
        assertThatThrownBy(() -> MachineApiJson.readMachineList("{\"machines\": ")).hasMessageStartingWith("not JSON: ");
    }

    @Test
    void aMergePatchKeepsNullsThatRemoveKeys() {
        Map<String, String> patch = new HashMap<>();
        patch.put("keep", "v");
        patch.put("drop", null);

        assertThat(MachineApiJson.readAnnotationsPatch(MachineApiJson.annotationsPatch(patch))).isEqualTo(patch);
    }
}
