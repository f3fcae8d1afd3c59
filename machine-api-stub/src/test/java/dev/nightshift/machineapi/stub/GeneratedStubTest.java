package dev.nightshift.machineapi.stub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineApiJson;
import dev.nightshift.agent.provider.http.MachineSpec;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.machineapi.stub.model.Machine;
import dev.nightshift.machineapi.stub.model.MachineList;
import dev.nightshift.machineapi.stub.model.MachinePatch;
import dev.nightshift.machineapi.stub.model.MachineRequest;
import dev.nightshift.machineapi.stub.model.UpdateRequest;

/**
 * The server stub openapi-generator makes from {@code machine-api/v1.yaml} compiles (this module
 * builds it), an adapter written against it alone ({@link InMemoryAdapter}) compiles and keeps the
 * contract's promises, and its JSON is the agent's: what the agent's codec sends, the generated
 * models read without an unknown field, and what they answer, the agent reads.
 */
class GeneratedStubTest {

    private static final Instant NOW = Instant.parse("2026-11-27T08:00:00Z");
    private static final String KEY = "ns1-3f2a9c0d41b7e85a6c19d2f0b8e47a35c6d1e902";

    /** Jackson as a Spring Boot application has it, but failing on a field the models do not know. */
    private final ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private final InMemoryAdapter adapter = new InMemoryAdapter(Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aCreateRepeatedWithItsKeyAnswers200WithTheMachineTheFirstOneMade() throws Exception {
        MachineRequest request = stubRequest(agentRequest());

        var first = adapter.createMachine("workers", KEY, request);
        var repeated = adapter.createMachine("workers", KEY, request);

        assertThat(first.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        assertThat(repeated.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(repeated.getBody().getId()).isEqualTo(first.getBody().getId());
        assertThat(adapter.listMachines("workers").getBody().getMachines()).hasSize(1);
    }

    @Test
    void aReplaceLeavesTheOldMachineDeletingAndAnswers202WithItsReplacement() throws Exception {
        MachineRequest request = stubRequest(agentRequest());
        String old = adapter.createMachine("workers", KEY, request).getBody().getId();

        var replaced = adapter.replaceMachine(old, KEY.replace("ns1-3", "ns1-4"), request);

        assertThat(replaced.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        assertThat(adapter.listMachines("workers").getBody().getMachines())
                .extracting(Machine::getId, Machine::getState)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(old, Machine.StateEnum.DELETING),
                        org.assertj.core.groups.Tuple.tuple(replaced.getBody().getId(), Machine.StateEnum.RUNNING));
    }

    @Test
    void aDeleteOfAMachineAlreadyGoneAnswers404AndAnUpdateOfOneIsAnError() {
        assertThat(adapter.deleteMachine("m-gone").getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThatThrownBy(() -> adapter.updateMachine("m-gone", KEY, new UpdateRequest()))
                .isInstanceOfSatisfying(InMemoryAdapter.ApiError.class, e -> {
                    assertThat(e.status()).isEqualTo(HttpStatus.NOT_FOUND);
                    assertThat(e.body().getMessage()).isEqualTo("no machine m-gone");
                });
    }

    @Test
    void theGeneratedModelsReadTheMachineRequestTheAgentSends() throws Exception {
        MachineRequest request = stubRequest(agentRequest());

        assertThat(request.getLabels()).containsExactly(Map.entry("tier", "frontend"));
        assertThat(request.getAnnotations()).containsEntry("nightshift.dev/roll-hash", "r1");
        assertThat(request.getTaints()).singleElement().satisfies(taint -> {
            assertThat(taint.getKey()).isEqualTo("dedicated");
            assertThat(taint.getValue()).isNull();
            assertThat(taint.getEffect().getValue()).isEqualTo("NoSchedule");
        });
        assertThat(request.getSpec().getImage().getVersion()).isEqualTo("1632.0.0");
        assertThat(request.getSpec().getVolume()).isNull();
        assertThat(request.getSpec().getKubelet()).containsEntry("maxPods", 110);
    }

    @Test
    void theGeneratedModelsReadTheUpdateAndThePatchTheAgentSends() throws Exception {
        var agentUpdate = new dev.nightshift.agent.provider.http.UpdateRequest(
                dev.nightshift.agent.provider.http.UpdateRequest.Operation.RESTART_KUBELET, Map.of("nightshift.dev/kubelet-hash", "k2"),
                agentRequest().spec());
        Map<String, String> removeOne = new HashMap<>();
        removeOne.put("nightshift.dev/surge-for", null);
        removeOne.put("nightshift.dev/roll-hash", "r2");

        UpdateRequest update = json.readValue(MachineApiJson.updateRequest(agentUpdate), UpdateRequest.class);
        MachinePatch patch = json.readValue(MachineApiJson.annotationsPatch(removeOne), MachinePatch.class);

        assertThat(update.getOperation()).isEqualTo(UpdateRequest.OperationEnum.RESTART_KUBELET);
        assertThat(update.getAnnotations()).containsExactly(Map.entry("nightshift.dev/kubelet-hash", "k2"));
        assertThat(patch.getAnnotations()).containsEntry("nightshift.dev/surge-for", null).containsEntry("nightshift.dev/roll-hash", "r2");
    }

    @Test
    void theAgentReadsTheListingTheGeneratedModelsAnswer() throws Exception {
        adapter.createMachine("workers", KEY, stubRequest(agentRequest()));
        MachineList listing = adapter.listMachines("workers").getBody();

        List<ApiMachine> read = MachineApiJson.readMachineList(json.writeValueAsString(listing));

        assertThat(read).singleElement().satisfies(machine -> {
            assertThat(machine.id()).isEqualTo("m-workers-1");
            assertThat(machine.pool()).isEqualTo("workers");
            assertThat(machine.node()).contains("m-workers-1");
            assertThat(machine.state()).isEqualTo(MachineState.RUNNING);
            assertThat(machine.createdAt()).isEqualTo(NOW);
            assertThat(machine.annotations()).containsEntry("nightshift.dev/roll-hash", "r1");
            assertThat(machine.message()).isNull();
        });
    }

    @Test
    void theAgentReadsAMachineWithoutANodeYetAsTheGeneratedModelWritesIt() throws Exception {
        Machine creating = new Machine("m-1", "workers", null, Machine.StateEnum.CREATING, NOW.atOffset(ZoneOffset.UTC), Map.of(), null);

        ApiMachine read = MachineApiJson.readMachine(json.writeValueAsString(creating));

        assertThat(read.node()).isEmpty();
        assertThat(read.state()).isEqualTo(MachineState.CREATING);
    }

    /** The agent's request, as its own codec writes it, read by the generated model. */
    private MachineRequest stubRequest(dev.nightshift.agent.provider.http.MachineRequest request) throws Exception {
        return json.readValue(MachineApiJson.machineRequest(request), MachineRequest.class);
    }

    private static dev.nightshift.agent.provider.http.MachineRequest agentRequest() {
        MachineSpec spec = new MachineSpec("m5.large", new MachineSpec.Image("flatcar", "1632.0.0"), null, "containerd", "1.31.5",
                Map.of("maxPods", 110), Map.of("subnet", "a"));
        return new dev.nightshift.agent.provider.http.MachineRequest(Map.of("tier", "frontend"), Map.of("nightshift.dev/roll-hash", "r1"),
                List.of(new dev.nightshift.agent.provider.http.MachineRequest.Taint("dedicated", null, "NoSchedule")), spec);
    }
}
