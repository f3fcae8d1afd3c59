package dev.nightshift.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What runs in a cluster is built without the sandbox: the agent module's whole resolved dependency tree (every scope,
 * tests included, which is what Maven puts on this JVM's class path) holds no mock API server, no Vert.x and no mock
 * web server, and none of the sandbox's own classes.
 */
class DependencyTreeTest {

    private static List<String> classPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().normalize().toString().replace(File.separatorChar, '/'))
                .toList();
    }

    @Test
    void theClassPathIsTheModulesResolvedTreeAndHasItsKubernetesClient() {
        // Guards the test below against a class path that says nothing (a launcher jar in its place).
        assertThat(classPath()).anyMatch(entry -> entry.contains("/io/fabric8/kubernetes-client/"));
    }

    @Test
    void noMockServerVertxOrMockWebServerIsInTheTree() {
        assertThat(classPath()).noneMatch(entry -> entry.contains("/io/fabric8/kubernetes-server-mock/")
                || entry.contains("/io/fabric8/mockwebserver/") || entry.contains("/io/vertx/")
                || entry.contains("/com/squareup/okhttp3/mockwebserver/"));
    }

    @Test
    void noSandboxOrCliClassesAreInTheTree() {
        assertThat(classPath()).noneMatch(entry -> entry.contains("/dev/nightshift/sandbox/") || entry.endsWith("/sandbox/target/classes")
                || entry.contains("/dev/nightshift/cli/") || entry.endsWith("/cli/target/classes"));
    }
}
