package dev.nightshift.cli;

import picocli.CommandLine;

final class VersionProvider implements CommandLine.IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[] {"nightshift " + (version == null ? "development" : version)};
    }
}
