package dev.nightshift.agent.manifests;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A request to the Kubernetes API as RBAC sees it: verb, API group, resource (with its subresource),
 * namespace and name, from the HTTP method and path, as the API server's request-info resolver
 * derives them. Paths that name no resource (discovery, {@code /version}) are non-resource requests.
 *
 * @param verb        get, list, watch, create, update, patch, delete or deletecollection; for a
 *                    non-resource request the lower-case HTTP method
 * @param apiGroup    "" for the core group
 * @param resource    plural, with {@code /subresource} when there is one (e.g. {@code pods/eviction})
 * @param namespace   empty for cluster-scoped resources and requests across all namespaces
 * @param name        empty for collections
 * @param path        the path without its query, as sent
 */
record ApiRequest(String verb, String apiGroup, String resource, String namespace, String name, String path,
        boolean nonResource) {

    /**
     * The non-resource URLs every authenticated client may read (the default ClusterRoles
     * system:discovery and system:public-info-viewer); nothing else without a resource is expected.
     */
    private static final Pattern PUBLIC = Pattern.compile("/version/?|/api(/[^/]+)?/?|/apis(/[^/]+){0,2}/?|/openapi(/.*)?"
            + "|/healthz|/livez|/readyz");

    static ApiRequest of(String method, String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
        List<String> s = Arrays.stream(path.split("/")).filter(p -> !p.isEmpty()).toList();
        int versionEnd;
        String group;
        if (s.size() >= 3 && s.get(0).equals("api")) {
            group = "";
            versionEnd = 2;
        } else if (s.size() >= 4 && s.get(0).equals("apis")) {
            group = s.get(1);
            versionEnd = 3;
        } else {
            return new ApiRequest(method.toLowerCase(), "", "", "", "", path, true);
        }
        List<String> rest = s.subList(versionEnd, s.size());
        boolean watch = query.matches("(.*&)?watch=(true|1)(&.*)?");
        if (rest.get(0).equals("watch")) {
            // The deprecated form /api/v1/watch/...
            watch = true;
            rest = rest.subList(1, rest.size());
        }
        String namespace = "";
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        if (rest.isEmpty() || rest.size() > 3) {
            throw new IllegalArgumentException("not a resource path: " + pathAndQuery);
        }
        String name = rest.size() >= 2 ? rest.get(1) : "";
        String resource = rest.get(0) + (rest.size() == 3 ? "/" + rest.get(2) : "");
        String verb = switch (method) {
            case "GET", "HEAD" -> watch ? "watch" : name.isEmpty() ? "list" : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
            default -> throw new IllegalArgumentException("no Kubernetes verb for " + method + " " + pathAndQuery);
        };
        return new ApiRequest(verb, group, resource, namespace, name, path, false);
    }

    /** Whether any authenticated client may make this request without a role of its own. */
    boolean publicNonResource() {
        return nonResource && verb.equals("get") && PUBLIC.matcher(path).matches();
    }

    /** As RBAC attributes, e.g. {@code patch nodes/web-1} or {@code create pods/eviction shop/db-0}. */
    @Override
    public String toString() {
        if (nonResource) {
            return verb + " " + path + " (non-resource)";
        }
        return verb + " " + (apiGroup.isEmpty() ? "" : apiGroup + "/") + resource
                + (namespace.isEmpty() ? "" : " in " + namespace) + (name.isEmpty() ? "" : " name " + name);
    }
}
