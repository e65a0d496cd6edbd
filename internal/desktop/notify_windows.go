package desktop

import (
	"fmt"

	"git.sr.ht/~jackmordaunt/go-toast/wintoast"
)

// platformNotifier shows toasts through the Windows Runtime (toastOf writes them): a click on the toast, or on its
// button, has Windows open the link, with no process of ours listening; a sticky toast stays on screen until the
// user dismisses it.
type platformNotifier struct{}

func (platformNotifier) show(o NotifierOptions, n Notification, icon string) error {
	doc, err := toastOf(n, icon)
	if err != nil {
		return err
	}
	if err := wintoast.SetAppData(wintoast.AppData{AppID: o.AppName, IconPath: icon}); err != nil {
		return fmt.Errorf("register the app for notifications: %w", err)
	}
	return wintoast.Push(doc, wintoast.PowershellFallback)
}

func (platformNotifier) close() {}
