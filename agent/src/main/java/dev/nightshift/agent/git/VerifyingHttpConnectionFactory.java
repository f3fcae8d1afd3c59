package dev.nightshift.agent.git;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.ProtocolException;
import java.net.Proxy;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

import org.eclipse.jgit.transport.http.HttpConnection;
import org.eclipse.jgit.transport.http.HttpConnectionFactory;

/**
 * JGit's HTTP connections for one {@link GitSource}: set on each transport, because
 * {@code HttpTransport.setConnectionFactory} would change every JGit user in the JVM.
 *
 * <p>With CA certificates, {@code https://} connections trust only those; without, the JDK's
 * default trust store. Either way certificate and host name verification cannot be turned off:
 * JGit turns them off when a Git configuration on the host says {@code http.sslVerify false} (or
 * when a credentials provider answers "trust anyway"), by reconfiguring the connection — which
 * these connections ignore.
 *
 * <p>Every connection of one factory uses the same TLS socket factory, made once. The JDK reuses a
 * kept-alive connection only for the socket factory that opened it, and resumes TLS sessions only
 * within one context: with a context per connection (what JGit's {@code JDKHttpConnection.configure}
 * makes), each of the three requests of a poll ({@code info/refs}, again with the credentials, and
 * {@code ls-refs}) paid a connection and a full handshake; now a poll makes one connection, as
 * {@code git ls-remote} does (with the body of the first request's 401 read, see {@link VerifyingConnection#discardBody()}).
 */
final class VerifyingHttpConnectionFactory implements HttpConnectionFactory {

    /** Empty for the JDK's default socket factory, which the JDK shares already. */
    private final Optional<SSLSocketFactory> tls;

    /**
     * @param trust the trust managers for {@code https://}; empty for the JDK's default CAs
     * @throws IllegalStateException when the JDK cannot make a TLS context with them
     */
    VerifyingHttpConnectionFactory(Optional<TrustManager[]> trust) {
        this.tls = trust.map(VerifyingHttpConnectionFactory::socketFactory);
    }

    private static SSLSocketFactory socketFactory(TrustManager[] trust) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.clone(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot set up TLS with the given CA certificates: " + e.getMessage(), e);
        }
    }

    @Override
    public HttpConnection create(URL url) throws IOException {
        return configured((HttpURLConnection) url.openConnection());
    }

    @Override
    public HttpConnection create(URL url, Proxy proxy) throws IOException {
        return configured((HttpURLConnection) url.openConnection(proxy));
    }

    private HttpConnection configured(HttpURLConnection connection) {
        if (connection instanceof HttpsURLConnection https) {
            tls.ifPresent(https::setSSLSocketFactory);
        }
        return new VerifyingConnection(connection);
    }

    /** A JDK connection whose TLS set-up is fixed when it is created; otherwise as JGit's {@code JDKHttpConnection}. */
    private static final class VerifyingConnection implements HttpConnection {

        /** More than a 401 page: a body this long is not read, and its connection is closed as before. */
        private static final int MAX_DISCARDED_BYTES = 64 * 1024;

        private final HttpURLConnection connection;
        private boolean discarded;

        VerifyingConnection(HttpURLConnection connection) {
            this.connection = connection;
        }

        /** JGit calls this only to trust every certificate (http.sslVerify false): ignored. */
        @Override
        public void configure(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
        }

        /** JGit calls this only to accept every host name (http.sslVerify false): ignored. */
        @Override
        public void setHostnameVerifier(HostnameVerifier verifier) {
        }

        @Override
        public int getResponseCode() throws IOException {
            int code = connection.getResponseCode();
            if (code == HttpURLConnection.HTTP_UNAUTHORIZED && !discarded) {
                discarded = true;
                discardBody();
            }
            return code;
        }

        /**
         * Reads a 401's body to its end: JGit asks again with the credentials and never reads it, and the
         * JDK keeps a connection alive for the next request only once its response was read.
         */
        private void discardBody() {
            try (InputStream body = connection.getErrorStream()) {
                if (body != null) {
                    body.readNBytes(MAX_DISCARDED_BYTES);
                }
            } catch (IOException e) {
                // Then the connection is not reused; the next request opens another, as it did before.
            }
        }

        @Override
        public URL getURL() {
            return connection.getURL();
        }

        @Override
        public String getResponseMessage() throws IOException {
            return connection.getResponseMessage();
        }

        @Override
        public Map<String, List<String>> getHeaderFields() {
            return connection.getHeaderFields();
        }

        /** Every value of the header, its name in any case (HTTP header names are case-insensitive). */
        @Override
        public List<String> getHeaderFields(String name) {
            List<String> values = new ArrayList<>();
            connection.getHeaderFields().forEach((key, list) -> {
                if (name.equalsIgnoreCase(key) && list != null) {
                    values.addAll(list);
                }
            });
            return values;
        }

        @Override
        public String getHeaderField(String name) {
            return connection.getHeaderField(name);
        }

        @Override
        public void setRequestProperty(String key, String value) {
            connection.setRequestProperty(key, value);
        }

        @Override
        public void setRequestMethod(String method) throws ProtocolException {
            connection.setRequestMethod(method);
        }

        @Override
        public String getRequestMethod() {
            return connection.getRequestMethod();
        }

        @Override
        public void setUseCaches(boolean usecaches) {
            connection.setUseCaches(usecaches);
        }

        @Override
        public void setConnectTimeout(int timeout) {
            connection.setConnectTimeout(timeout);
        }

        @Override
        public void setReadTimeout(int timeout) {
            connection.setReadTimeout(timeout);
        }

        @Override
        public String getContentType() {
            return connection.getContentType();
        }

        @Override
        public int getContentLength() {
            return connection.getContentLength();
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return connection.getInputStream();
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            return connection.getOutputStream();
        }

        @Override
        public void setInstanceFollowRedirects(boolean followRedirects) {
            connection.setInstanceFollowRedirects(followRedirects);
        }

        @Override
        public void setDoOutput(boolean dooutput) {
            connection.setDoOutput(dooutput);
        }

        @Override
        public void setFixedLengthStreamingMode(int contentLength) {
            connection.setFixedLengthStreamingMode(contentLength);
        }

        @Override
        public void setChunkedStreamingMode(int chunklen) {
            connection.setChunkedStreamingMode(chunklen);
        }

        @Override
        public boolean usingProxy() {
            return connection.usingProxy();
        }

        @Override
        public void connect() throws IOException {
            connection.connect();
        }
    }
}
