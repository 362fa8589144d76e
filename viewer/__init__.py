"""sealscope.viewer: the Textual audit viewer over sealscope.core."""
