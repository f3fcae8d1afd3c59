package dev.nightshift.agent.notify;

import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The {@link Ledger} as the ConfigMap {@value #NAME} in the agent's namespace, beside the pool records
 * ({@code nightshift-pool-<pool>}): one data key per commit, its value the JSON of what was delivered for it. Written
 * with the agent's fenced client, so only the leader writes it; the Role's configmaps verbs (get, create, patch) cover it.
 */
final class ConfigMapLedgerStore implements LedgerStore {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigMapLedgerStore.class);
    static final String NAME = "nightshift-notifications";
    static final String LABEL = "nightshift.dev/notifications";

    private final KubernetesClient client;
    private final String namespace;

    ConfigMapLedgerStore(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    @Override
    public Map<String, String> load() {
        try {
            return Optional.ofNullable(client.configMaps().inNamespace(namespace).withName(NAME).get()).map(ConfigMap::getData)
                    .orElse(Map.of());
        } catch (KubernetesClientException e) {
            LOG.warn("cannot read the delivered notifications from ConfigMap {}/{}: statuses and events may be sent again: {}",
                    namespace, NAME, e.getMessage());
            return Map.of();
        }
    }

    @Override
    public void save(Map<String, String> data) {
        try {
            if (client.configMaps().inNamespace(namespace).withName(NAME).get() == null) {
                client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(NAME)
                        .withNamespace(namespace).addToLabels(LABEL, "true").addToLabels("app.kubernetes.io/part-of", "nightshift")
                        .endMetadata().withData(data).build()).create();
                return;
            }
            client.configMaps().inNamespace(namespace).withName(NAME).edit(cm -> {
                cm.setData(data);
                return cm;
            });
        } catch (RuntimeException e) {
            // Not fatal: what was delivered may be sent once more after a restart. A replica that lost the lease ends here.
            LOG.warn("cannot write the delivered notifications to ConfigMap {}/{}: {}", namespace, NAME, e.getMessage());
        }
    }
}
