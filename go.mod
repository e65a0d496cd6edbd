module github.com/gemini-search-mcp/gemini-search-mcp

go 1.25.5

require (
	fyne.io/systray v1.12.2 // indirect
	github.com/adrg/xdg v0.5.3 // indirect
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/godbus/dbus/v5 v5.1.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	golang.org/x/sys v0.26.0 // indirect
)
