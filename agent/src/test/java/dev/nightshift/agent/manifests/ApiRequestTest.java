package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ApiRequestTest {

    @ParameterizedTest(name = "{0} {1} is {2}")
    @CsvSource(delimiter = '|', textBlock = """
            GET    | /api/v1/nodes?labelSelector=nightshift.dev%2Fpool                              | list nodes
            GET    | /api/v1/nodes?allowWatchBookmarks=true&labelSelector=a&resourceVersion=1       | list nodes
            GET    | /api/v1/nodes?allowWatchBookmarks=true&labelSelector=a&watch=true              | watch nodes
            GET    | /api/v1/watch/namespaces/shop/pods                                             | watch pods in shop
            GET    | /api/v1/nodes/web-1                                                            | get nodes name web-1
            GET    | /api/v1/namespaces/nightshift-system/configmaps/nightshift-pool-web            | get configmaps in nightshift-system name nightshift-pool-web
            POST   | /api/v1/namespaces/shop/pods/db-0/eviction                                     | create pods/eviction in shop name db-0
            PUT    | /api/v1/namespaces/nightshift-system/events/e1                                 | update events in nightshift-system name e1
            PATCH  | /apis/coordination.k8s.io/v1/namespaces/nightshift-system/leases/nightshift-leader | patch coordination.k8s.io/leases in nightshift-system name nightshift-leader
            DELETE | /api/v1/namespaces/shop/pods/db-0                                              | delete pods in shop name db-0
            DELETE | /api/v1/namespaces/shop/pods                                                   | deletecollection pods in shop
            GET    | /api/v1/namespaces/shop                                                        | get namespaces name shop
            GET    | /api/v1/namespaces                                                             | list namespaces
            GET    | /version                                                                       | get /version (non-resource)
            GET    | /apis/apps/v1                                                                  | get /apis/apps/v1 (non-resource)
            """)
    void methodAndPathGiveTheRbacAttributes(String method, String path, String attributes) {
        assertThat(ApiRequest.of(method, path)).hasToString(attributes);
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            GET  | /version       | true
            GET  | /api           | true
            GET  | /apis/apps/v1  | true
            GET  | /metrics       | false
            POST | /version       | false
            GET  | /api/v1/nodes  | false
            """)
    void onlyDiscoveryAndVersionAreOpenToEveryone(String method, String path, boolean open) {
        assertThat(ApiRequest.of(method, path).publicNonResource()).isEqualTo(open);
    }
}
