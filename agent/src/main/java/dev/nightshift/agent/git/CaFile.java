package dev.nightshift.agent.git;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CA certificates an {@code https://} remote's certificate must chain to, read from a PEM file.
 * They are trusted <em>instead of</em> the JDK's default CAs, not in addition: a repository behind a
 * private CA is then only trusted with a certificate of that CA, as with git's
 * {@code http.sslCAInfo} and a kubeconfig's {@code certificate-authority}. To trust public CAs as
 * well, put them in the same file.
 */
public final class CaFile {

    private static final Pattern BLOCK = Pattern.compile("(?s)-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----");

    private CaFile() {
    }

    /**
     * Trust managers that accept exactly the chains ending at one of the file's certificates, with
     * the JDK's usual checks (validity, host name through the HTTPS endpoint identification).
     *
     * @throws IllegalArgumentException naming the file, when it is missing, unreadable, not PEM, or
     *                                  holds a block that is not a certificate
     */
    public static TrustManager[] trustManagers(Path file) {
        List<Certificate> certificates = certificates(file);
        try {
            KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
            anchors.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                anchors.setCertificateEntry("ca-" + i, certificates.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(anchors);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the JDK cannot build a trust store from " + file + ": " + e.getMessage(), e);
        }
    }

    /** Every certificate in the file, in order. */
    public static List<Certificate> certificates(Path file) {
        String text;
        try {
            // Latin-1 decodes any bytes: comments in a CA bundle may be UTF-8, and a DER file is then
            // reported as "not PEM" rather than as a charset error.
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("CA file " + file + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException("CA file " + file + ": cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        }
        List<Certificate> certificates = new ArrayList<>();
        Matcher block = BLOCK.matcher(text);
        while (block.find()) {
            try {
                byte[] der = Base64.getMimeDecoder().decode(block.group(1));
                certificates.add(CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der)));
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                throw new IllegalArgumentException("CA file " + file + ": certificate " + (certificates.size() + 1)
                        + " is not a valid X.509 certificate (" + e.getMessage() + ")", e);
            }
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("CA file " + file + ": not a PEM file with a certificate; give the CA "
                    + "certificate(s) in PEM, each between -----BEGIN CERTIFICATE----- and -----END CERTIFICATE-----");
        }
        return List.copyOf(certificates);
    }
}
