package dev.nightshift.agent.git;

import java.io.IOException;
import java.net.Proxy;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Optional;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

import org.eclipse.jgit.transport.http.HttpConnection;
import org.eclipse.jgit.transport.http.HttpConnectionFactory;
import org.eclipse.jgit.transport.http.JDKHttpConnection;

/**
 * JGit's HTTP connections for one {@link GitSource}: set on each transport, because
 * {@code HttpTransport.setConnectionFactory} would change every JGit user in the JVM.
 *
 * <p>With CA certificates, {@code https://} connections trust only those; without, the JDK's
 * default trust store. Either way certificate and host name verification cannot be turned off:
 * JGit turns them off when a Git configuration on the host says {@code http.sslVerify false} (or
 * when a credentials provider answers "trust anyway"), by reconfiguring the connection — which
 * these connections ignore.
 */
final class VerifyingHttpConnectionFactory implements HttpConnectionFactory {

    private final Optional<TrustManager[]> trust;

    /** @param trust the trust managers for {@code https://}; empty for the JDK's default CAs */
    VerifyingHttpConnectionFactory(Optional<TrustManager[]> trust) {
        this.trust = trust.map(TrustManager[]::clone);
    }

    @Override
    public HttpConnection create(URL url) throws IOException {
        return configured(new VerifyingConnection(url), url);
    }

    @Override
    public HttpConnection create(URL url, Proxy proxy) throws IOException {
        return configured(new VerifyingConnection(url, proxy), url);
    }

    private HttpConnection configured(VerifyingConnection connection, URL url) throws IOException {
        if (trust.isPresent() && "https".equalsIgnoreCase(url.getProtocol())) {
            try {
                connection.trust(trust.get());
            } catch (GeneralSecurityException e) {
                throw new IOException("cannot set up TLS for " + url.getHost() + ": " + e.getMessage(), e);
            }
        }
        return connection;
    }

    /** A JDK connection whose TLS set-up is fixed when it is created. */
    private static final class VerifyingConnection extends JDKHttpConnection {

        VerifyingConnection(URL url) throws IOException {
            super(url);
        }

        VerifyingConnection(URL url, Proxy proxy) throws IOException {
            super(url, proxy);
        }

        /** A TLS context of its own per connection (JGit gives no way to share one); no JVM default changes. */
        void trust(TrustManager[] managers) throws GeneralSecurityException {
            super.configure(null, managers, null);
        }

        /** JGit calls this only to trust every certificate (http.sslVerify false): ignored. */
        @Override
        public void configure(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
        }

        /** JGit calls this only to accept every host name (http.sslVerify false): ignored. */
        @Override
        public void setHostnameVerifier(HostnameVerifier verifier) {
        }
    }
}
