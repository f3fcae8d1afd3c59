package dev.nightshift.agent.git;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;

import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.config.keys.AuthorizedKeysAuthenticator;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.UploadPack;

/**
 * An Apache MINA SSHD server that lets one public key run {@code git-upload-pack} on the bare
 * repositories under a base directory, with JGit's UploadPack doing the serving.
 */
final class SshGitServer implements AutoCloseable {

    private final SshServer sshd;
    private final KeyPair hostKey;

    SshGitServer(Path base, Path authorizedKeys, Path hostKeyFile) throws IOException {
        SimpleGeneratorHostKeyProvider hostKeys = new SimpleGeneratorHostKeyProvider(hostKeyFile);
        hostKeys.setAlgorithm("EC");
        hostKeys.setKeySize(256);
        this.hostKey = hostKeys.loadKeys(null).iterator().next();
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(hostKeys);
        sshd.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(authorizedKeys));
        sshd.setPasswordAuthenticator(null);
        sshd.setKeyboardInteractiveAuthenticator(null);
        sshd.setCommandFactory((channel, command) -> new UploadPackCommand(base, command));
        sshd.start();
    }

    String url(String repository) {
        return "ssh://git@127.0.0.1:" + sshd.getPort() + "/" + repository;
    }

    /** The known_hosts line for this server's real host key. */
    String knownHostsLine() {
        return "[127.0.0.1]:" + sshd.getPort() + " " + PublicKeyEntry.toString(hostKey.getPublic());
    }

    String knownHostsLine(String otherPublicKeyLine) {
        return "[127.0.0.1]:" + sshd.getPort() + " " + otherPublicKeyLine;
    }

    @Override
    public void close() throws IOException {
        sshd.stop(true);
    }

    /** Runs {@code git-upload-pack '/name.git'} with JGit. */
    private static final class UploadPackCommand implements Command {
        private final Path base;
        private final String command;
        private InputStream in;
        private OutputStream out;
        private OutputStream err;
        private ExitCallback exit;

        UploadPackCommand(Path base, String command) {
            this.base = base;
            this.command = command;
        }

        @Override
        public void setInputStream(InputStream in) {
            this.in = in;
        }

        @Override
        public void setOutputStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void setErrorStream(OutputStream err) {
            this.err = err;
        }

        @Override
        public void setExitCallback(ExitCallback callback) {
            this.exit = callback;
        }

        @Override
        public void start(ChannelSession channel, Environment env) {
            Thread t = new Thread(this::serve, "ssh-upload-pack");
            t.setDaemon(true);
            t.start();
        }

        private void serve() {
            List<String> words = List.of(command.split(" ", 2));
            if (!words.get(0).equals("git-upload-pack") || words.size() < 2) {
                exit.onExit(127, "only git-upload-pack is served");
                return;
            }
            String name = words.get(1).replace("'", "").replaceAll("^/+", "");
            Path dir = base.resolve(name).normalize();
            if (!dir.startsWith(base) || !Files.isDirectory(dir)) {
                exit.onExit(128, "no repository " + name);
                return;
            }
            try (Repository repo = new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build()) {
                new UploadPack(repo).upload(in, out, err);
                out.flush();
                exit.onExit(0);
            } catch (IOException e) {
                exit.onExit(1, e.getMessage());
            }
        }

        @Override
        public void destroy(ChannelSession channel) {
        }
    }
}
