"""Entry point inside the APK (python-for-android runs main.py): the table app on the phone's camera.

Journals go to the app's private data folder (Kivy's ``user_data_dir``); without a camera permission
or camera, the app falls back to the demo recording and manual entry, as on the desktop.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("KIVY_NO_ARGS", "1")


def run() -> None:
    from kivy.utils import platform

    data = None
    if platform == "android":
        from android.permissions import Permission, request_permissions  # noqa: F401 (p4a module)

        request_permissions([Permission.CAMERA])
        from android.storage import app_storage_path  # p4a module

        data = os.path.join(app_storage_path(), "companion")
    from companion.app.main import CompanionApp

    CompanionApp(source="auto", data_dir=data).run()


if __name__ == "__main__":
    run()
