package desktop

import "github.com/gen2brain/beeep"

// platformNotifier shows plain notifications through beeep (terminal-notifier, else AppleScript): neither opens a
// link, and the notification center decides how long a notification stays.
type platformNotifier struct{}

func (platformNotifier) show(o NotifierOptions, n Notification, icon string) error {
	beeep.AppName = o.AppName
	return beeep.Notify(n.Title, n.Body, icon)
}

func (platformNotifier) close() {}
