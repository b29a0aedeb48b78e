"""Chat platforms' own protocols (Slack's Web API and request signing, Mattermost's interactive messages, Matrix
message shapes): what both the gateways (posting alerts) and the web app's receivers (button presses) speak."""
