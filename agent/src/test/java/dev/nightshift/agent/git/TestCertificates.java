package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made by the real openssl at test time, as an operator of a private CA would: nothing
 * is committed, and every run has fresh keys.
 */
public final class TestCertificates {

    public static final String PASSWORD = "test-keystore";

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A self-signed CA; returns its certificate in PEM ({@code name.pem}), its key is {@code name.key}. */
    public Path ca(String name) throws Exception {
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", name + ".key", "-out", name + ".pem", "-days", "2", "-subj", "/CN=Nightshift test " + name,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return dir.resolve(name + ".pem");
    }

    /**
     * A key and certificate for 127.0.0.1 signed by the CA {@code caName}, in a key store holding the
     * chain server → CA, as Jetty serves it.
     */
    public KeyStore server(String caName) throws Exception {
        return server(caName, "IP:127.0.0.1,DNS:localhost");
    }

    /** As {@link #server(String)}, for the names given as an openssl {@code subjectAltName}. */
    public KeyStore server(String caName, String subjectAltName) throws Exception {
        Files.writeString(dir.resolve("server.ext"),
                "basicConstraints=CA:FALSE\nsubjectAltName=" + subjectAltName + "\nextendedKeyUsage=serverAuth\n");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=nightshift test server");
        openssl("x509", "-req", "-in", "server.csr", "-CA", caName + ".pem", "-CAkey", caName + ".key", "-CAcreateserial",
                "-days", "2", "-extfile", "server.ext", "-out", "server.pem");
        List<Certificate> chain = new ArrayList<>(certificates(dir.resolve("server.pem")));
        chain.addAll(certificates(dir.resolve(caName + ".pem")));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", privateKey(dir.resolve("server.key")), PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
        return keys;
    }

    static List<Certificate> certificates(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    private static PrivateKey privateKey(Path pkcs8Pem) throws Exception {
        String base64 = Files.readString(pkcs8Pem, StandardCharsets.US_ASCII).replaceAll("-----[A-Z ]+-----|\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    private void openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("openssl %s: %s", String.join(" ", args), output).isZero();
    }
}
